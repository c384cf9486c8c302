import Testing

@testable import RelinkCore

@Suite("Long-link codec")
struct LinkCodecTests {
    let prefix = try! DomainURIPrefix("https://go.pictlink.com")

    /// The FDL sample app's link.
    var sample: LinkParameters {
        LinkParameters([
            .link: "https://pictlink.com/myPage", .apn: "jp.furyu.pictlink.android", .ibi: "jp.furyu.pictlink.ios",
            .ius: "pictlink", .isi: "000000001",
        ])
    }

    @Test func buildsInFDLOrderWithEveryNonAlphanumericByteEncoded() {
        let url = LongLink(prefix: prefix, parameters: sample).url
        #expect(
            url
                == "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink%2Ecom%2FmyPage&apn=jp%2Efuryu%2Epictlink%2Eandroid&ibi=jp%2Efuryu%2Epictlink%2Eios&ius=pictlink&isi=000000001"
        )
    }

    /// Whitespace around a pasted link goes, by byte: a CR LF pair (one `Character`, which is neither CR nor LF) at
    /// its end was kept, and the link read as ending in it.
    @Test func whitespaceAroundALinkIsTrimmedByByte() {
        let url = LongLink(prefix: prefix, parameters: sample).url
        for padded in [url + "\r\n", " \t" + url + " \r\n", "\r\n" + url + "\n", url + "\r\n\r\n"] {
            let result = LongLink.parse(padded)
            #expect(result.isValid, "\(padded.debugDescription)")
            #expect(result.parameters == sample)
        }
        #expect("\r\n\u{E9}\r\n".trimmingASCIIWhitespace() == "\u{E9}")
        #expect("日本\r\n".trimmingASCIIWhitespace() == "日本")
        #expect(" \r\n ".trimmingASCIIWhitespace().isEmpty)
    }

    @Test func parsesTheSampleBack() {
        let result = LongLink.parse(LongLink(prefix: prefix, parameters: sample).url)
        #expect(result.isValid)
        #expect(result.warnings.isEmpty)
        #expect(result.prefix == prefix)
        #expect(result.parameters == sample)
    }

    @Test func everyParameterRoundTrips() {
        var parameters = LinkParameters()
        for parameter in LinkParameter.allCases {
            parameters[parameter] = "value of \(parameter.name) & more=?#%"
        }
        parameters.link = "https://example.com/a?b=c&d=e#f"
        let parsed = LongLink.parse(LongLink(prefix: prefix, parameters: parameters).url)
        #expect(parsed.parameters == parameters)
        #expect(parsed.parameters.count == LinkParameter.allCases.count)
    }

    @Test func keepsALinkWithItsOwnQueryAndFragment() {
        var parameters = LinkParameters()
        parameters.link = "https://pictlink.com/search?q=caf%C3%A9&tags=a,b#top"
        let parsed = LongLink.parse(LongLink(prefix: prefix, parameters: parameters).url)
        #expect(parsed.parameters.link == "https://pictlink.com/search?q=caf%C3%A9&tags=a,b#top")
    }

    @Test(arguments: [
        // Hand-written: `link` not encoded, with its own `?` and `=` (only `&` and `#` truncate).
        ("https://go.pictlink.com/?link=https://pictlink.com/a?b=c&apn=x.y", "https://pictlink.com/a?b=c"),
        // Lowercase hex, `+` for a space (Java's URLEncoder), no slash before `?`.
        ("https://go.pictlink.com?link=https%3a%2f%2fpictlink.com%2fa+b&apn=x.y", "https://pictlink.com/a b"),
        // Android's Uri.Builder: only reserved characters encoded.
        ("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2F%3Fx%3D1&apn=x.y", "https://pictlink.com/?x=1"),
        // Surrounding whitespace from a copy and paste.
        ("  https://go.pictlink.com/?link=https://pictlink.com/&apn=x.y\n", "https://pictlink.com/"),
        // Non-ASCII written raw.
        ("https://go.pictlink.com/?link=https://pictlink.com/café&apn=x.y", "https://pictlink.com/café"),
    ])
    func acceptsWhatBuildersAndPeopleWrite(url: String, link: String) {
        let result = LongLink.parse(url)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.parameters.link == link)
        #expect(result.parameters.apn == "x.y")
    }

    @Test func readsAPrefixWithAPath() {
        let result = LongLink.parse("https://pictlink.com/links/?link=https%3A%2F%2Fpictlink.com%2Fa")
        #expect(result.prefix == (try? DomainURIPrefix("https://pictlink.com/links")))
        #expect(result.isValid)
        #expect(LongLink(prefix: result.prefix!, parameters: result.parameters).url.hasPrefix("https://pictlink.com/links/?link="))
    }

    @Test func emptyValuesMeanAbsent() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https://pictlink.com/&apn=&efr")
        #expect(result.parameters.apn == nil)
        #expect(result.parameters.efr == nil)
        #expect(result.parameters.count == 1)
    }

    @Test func ignoresFDLInternalParametersSilently() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https://pictlink.com/&_osl=x&_icp=1&cid=123")
        #expect(result.isValid)
        #expect(result.warnings.isEmpty)
    }

    @Test func brokenEscapeIsNotParsable() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2&apn=x.y")
        #expect(result.errors.map(\.code) == [.longLinkNotParsable])
        #expect(result.errors[0].parameter == "link")
    }

    @Test func invalidUTF8IsNotParsable() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2F%FF")
        #expect(result.errors.map(\.code) == [.longLinkNotParsable])
    }

    @Test func brokenEscapeInANameIsNotParsable() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https://pictlink.com/&a%zz=1")
        #expect(result.errors.map(\.code) == [.longLinkNotParsable])
    }

    @Test func repeatedParameterIsAnError() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https://pictlink.com/a&link=https://evil.example/")
        #expect(result.errors.map(\.code) == [.duplicateParam])
        #expect(result.parameters.link == "https://pictlink.com/a")
    }

    @Test(arguments: ["", "go.pictlink.com/?link=x", "ftp://go.pictlink.com/?link=x", "https:///?link=x", "not a url"])
    func somethingThatIsNotALongLinkIsNotParsable(text: String) {
        let result = LongLink.parse(text)
        #expect(!result.isValid)
        #expect(result.errors.map(\.code) == [.longLinkNotParsable])
        #expect(result.errors[0].message.hasPrefix("Long link is not parsable: "))
        #expect(result.prefix == nil)
    }

    @Test func tooLongLinkIsAnError() {
        var parameters = LinkParameters()
        parameters.link = "https://pictlink.com/" + String(repeating: "a", count: 2000)
        parameters.st = String(repeating: "title ", count: 1000)
        let url = LongLink(prefix: prefix, parameters: parameters).url
        #expect(url.count > LongLink.maximumLength)
        let result = LongLink.parse(url)
        #expect(result.errors.map(\.code) == [.linkLengthTooLong])
        #expect(result.parameters == parameters)
    }

    @Test func encodesValuesWithEveryByteKept() {
        let value = "a b+c&d=e#f%g?h/é日本😀"
        let encoded = PercentEncoding.encodeQueryValue(value)
        #expect(encoded.utf8.allSatisfy { PercentEncoding.isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "%") })
        #expect(PercentEncoding.decode(Substring(encoded)) == value)
    }

    @Test func encodesLocationSafely() {
        #expect(PercentEncoding.encodeForURL("https://a.com/a b?c=é") == "https://a.com/a%20b?c=%C3%A9")
        #expect(PercentEncoding.encodeForURL("https://a.com/x?y=1#z") == "https://a.com/x?y=1#z")
    }
}
