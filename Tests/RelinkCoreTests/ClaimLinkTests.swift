import Testing

@testable import RelinkCore

@Suite("Claim links")
struct ClaimLinkTests {
    @Test func aClaimLinkNamesOnlyItsOwnClick() {
        #expect(ClaimLink.url(for: "https://d.link/spring", clickID: "A") == "https://d.link/spring?rc=A&_icp=1")
        #expect(ClaimLink.url(for: "https://d.link/?link=x&apn=y", clickID: "B") == "https://d.link/?link=x&apn=y&rc=B&_icp=1")
        // A claim link opened in the browser is a new click: its claim link names the new click only.
        #expect(ClaimLink.url(for: "https://d.link/?link=x&rc=A&_icp=1", clickID: "B") == "https://d.link/?link=x&rc=B&_icp=1")
    }

    @Test(arguments: [
        ("https://d.link/?link=x&rc=SECRET&_icp=1", "https://d.link/?link=x"),
        ("https://d.link/?rc=SECRET&_icp=1", "https://d.link/"),
        ("https://d.link/?rc=SECRET&link=x", "https://d.link/?link=x"),
        ("https://d.link/?link=x&%72c=SECRET&%5Ficp=1", "https://d.link/?link=x"),
        ("https://d.link/?link=x&rc&_icp=1#top", "https://d.link/?link=x#top"),
        ("https://d.link/?link=x&rcx=1&src=2", "https://d.link/?link=x&rcx=1&src=2"),
        ("https://d.link/spring", "https://d.link/spring"),
        ("https://d.link/?link=https%3A%2F%2Fa.com%2F%3Frc%3D1", "https://d.link/?link=https%3A%2F%2Fa.com%2F%3Frc%3D1"),
    ])
    func aKeptLinkCarriesNoToken(_ link: String, _ expected: String) {
        #expect(ClaimLink.withoutToken(link) == expected)
    }

    /// The byte-level check that spares the usual link the full rewrite agrees with the rewrite itself: a link is
    /// changed exactly when it carries a token parameter, in any spelling of its name.
    @Test func theFastCheckAgreesWithTheRewrite() {
        let pieces = ["rc=1", "%72c=2", "r%63", "_icp=1", "%5Ficp", "utm_source=rc", "src=3", "rcx=4", "xrc=5", "", "=rc", "a=b=rc", "%zz=1", "é=rc"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let query = (0..<Int.random(in: 0...4, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined(separator: "&")
            let fragment = Bool.random(using: &generator) ? "#rc=9" : ""
            let link = "https://pictlink.com/p" + (query.isEmpty && Bool.random(using: &generator) ? "" : "?" + query) + fragment
            let reference = Self.referenceWithoutToken(link)
            #expect(ClaimLink.carriesToken(link) == (reference != link), "\(link)")
            #expect(ClaimLink.withoutToken(link) == reference, "\(link)")
        }
    }

    /// The rewrite as it was before the fast check, for comparison.
    static func referenceWithoutToken(_ link: String) -> String {
        guard let questionMark = link.firstIndex(of: "?") else { return link }
        let queryStart = link.index(after: questionMark)
        let queryEnd = link[queryStart...].firstIndex(of: "#") ?? link.endIndex
        let pairs = link[queryStart..<queryEnd].split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in
            let name = pair.prefix { $0 != "=" }
            let decoded = PercentEncoding.decode(name) ?? String(name)
            return decoded != ClaimLink.tokenName && decoded != ClaimLink.markerName
        }
        guard kept.count != pairs.count else { return link }
        let prefix = kept.isEmpty ? link[..<questionMark] : link[...questionMark]
        return String(prefix) + kept.joined(separator: "&") + link[queryEnd...]
    }
}
