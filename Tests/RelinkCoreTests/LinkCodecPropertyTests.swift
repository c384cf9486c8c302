import PropertyBased
import Testing

@testable import RelinkCore

@Suite("Long-link codec properties")
struct LinkCodecPropertyTests {
    /// Characters that break naive encoders, plus ordinary ones so values look like real links.
    static let alphabet: [Character] = Array("abcXYZ019-._~:/?#[]@!$&'()*+,;=% \t\"<>\\^`{|}éüß日本語😀👍🏽\u{200B}")

    static let value = Generator<String, Shrink.None<String>> { rng in
        let length = Int.random(in: 1...40, using: &rng)
        return String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
    }

    static let prefixes = [
        "https://go.pictlink.com", "https://pictlink.com/links", "https://go.example.com:8443/a/b", "http://localhost:8080",
    ].map { try! DomainURIPrefix($0) }

    /// A random subset of parameters with hostile values; `link` carries a real URL plus hostile bits.
    static let linkGenerator = Generator<LongLink, Shrink.None<LongLink>> { rng in
        var parameters = LinkParameters()
        for parameter in LinkParameter.allCases where Bool.random(using: &rng) {
            parameters[parameter] = value.run(using: &rng)
        }
        if Bool.random(using: &rng) {
            parameters.link = "https://pictlink.com/p?q=" + value.run(using: &rng) + "&x=" + value.run(using: &rng) + "#" + value.run(using: &rng)
        }
        return LongLink(prefix: prefixes.randomElement(using: &rng)!, parameters: parameters)
    }

    @Test func parseInvertsBuild() async {
        await propertyCheck(count: 500, input: Self.linkGenerator) { link in
            let result = LongLink.parse(link.url)
            #expect(result.parameters == link.parameters)
            #expect(result.prefix == link.prefix)
            #expect(!result.errors.contains { $0.code == .longLinkNotParsable || $0.code == .duplicateParam })
        }
    }

    @Test func decodeInvertsEncode() async {
        await propertyCheck(count: 500, input: Self.value) { value in
            #expect(PercentEncoding.decode(Substring(PercentEncoding.encodeQueryValue(value))) == value)
        }
    }
}
