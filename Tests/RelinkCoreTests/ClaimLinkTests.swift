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
}
