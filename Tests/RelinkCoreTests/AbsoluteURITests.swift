import Testing

@testable import RelinkCore

@Suite("URIs and domain prefixes")
struct AbsoluteURITests {
    @Test func splitsAnHTTPURL() throws {
        let uri = try #require(AbsoluteURI("HTTPS://user:pw@Example.COM:8443/a/b?c=d&e#f"))
        #expect(uri.scheme == "https")
        #expect(uri.host == "example.com")
        #expect(uri.port == 8443)
        #expect(uri.path == "/a/b")
        #expect(uri.query == "c=d&e")
        #expect(uri.fragment == "f")
    }

    @Test(arguments: [
        "https://[2001:db8::1]/x", "https://[::1]:8080", "http://localhost", "https://xn--caf-dma.example/", "https://café.example/a b",
    ])
    func acceptsValidHosts(text: String) {
        #expect(AbsoluteURI(text) != nil)
    }

    @Test(arguments: [
        "https://", "https:///x", "https://a..b/", "https://a b/", "https://a.com:99999/", "https://a.com:x/",
        "https://[zz]/", "//a.com/", "a.com", "1http://a.com", "https://a.com/\r\nx", "https://.a.com/",
    ])
    func rejectsInvalid(text: String) {
        #expect(AbsoluteURI(text) == nil)
    }

    @Test func nonHTTPSchemesNeedNoHost() throws {
        let uri = try #require(AbsoluteURI("javascript:alert(1)"))
        #expect(uri.scheme == "javascript")
        #expect(uri.host == nil)
        #expect(!uri.isHTTP)
    }

    @Test func normalisesPrefixes() throws {
        let prefix = try DomainURIPrefix("https://Pictlink.COM/links/")
        #expect(prefix.description == "https://pictlink.com/links")
        #expect(prefix.relativePath(of: "/links/abc") == "/abc")
        #expect(prefix.relativePath(of: "/links") == "/")
        #expect(prefix.relativePath(of: "/linksabc") == nil)
        #expect(prefix.relativePath(of: "/other") == nil)
        let bare = try DomainURIPrefix("https://pictlink.page.link")
        #expect(bare.relativePath(of: "/abc") == "/abc")
        #expect(bare.url(path: "/abc") == "https://pictlink.page.link/abc")
    }

    @Test(arguments: [
        ("pictlink.page.link", DomainURIPrefix.ParseError.notAURI("pictlink.page.link")),
        ("ftp://pictlink.page.link", .notHTTP("ftp://pictlink.page.link")),
        ("https://pictlink.page.link/?x=1", .hasQueryOrFragment("https://pictlink.page.link/?x=1")),
        ("https://pictlink.page.link/#x", .hasQueryOrFragment("https://pictlink.page.link/#x")),
        ("https://u@pictlink.page.link", .hasUserInfo("https://u@pictlink.page.link")),
        ("https://pictlink.com/a b", .badPath("https://pictlink.com/a b")),
        ("https://pictlink.com/a//b", .badPath("https://pictlink.com/a//b")),
    ])
    func rejectsBadPrefixes(text: String, error: DomainURIPrefix.ParseError) {
        #expect(throws: error) { try DomainURIPrefix(text) }
    }
}
