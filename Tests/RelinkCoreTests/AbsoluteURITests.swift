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
        let bare = try DomainURIPrefix("https://go.pictlink.com")
        #expect(bare.relativePath(of: "/abc") == "/abc")
        #expect(bare.url(path: "/abc") == "https://go.pictlink.com/abc")
    }

    @Test(arguments: [
        ("go.pictlink.com", DomainURIPrefix.ParseError.notAURI("go.pictlink.com")),
        ("ftp://go.pictlink.com", .notHTTP("ftp://go.pictlink.com")),
        ("https://go.pictlink.com/?x=1", .hasQueryOrFragment("https://go.pictlink.com/?x=1")),
        ("https://go.pictlink.com/#x", .hasQueryOrFragment("https://go.pictlink.com/#x")),
        ("https://u@go.pictlink.com", .hasUserInfo("https://u@go.pictlink.com")),
        ("https://pictlink.com/a b", .badPath("https://pictlink.com/a b")),
        ("https://pictlink.com/a//b", .badPath("https://pictlink.com/a//b")),
    ])
    func rejectsBadPrefixes(text: String, error: DomainURIPrefix.ParseError) {
        #expect(throws: error) { try DomainURIPrefix(text) }
    }

    @Test func aTrailingDotOrAnExplicitDefaultPortIsTheSameDomain() throws {
        let prefix = try DomainURIPrefix("https://go.pictlink.com")
        for url in ["https://GO.pictlink.com./x", "https://go.pictlink.com:443/x", "https://go.pictlink.com/x"] {
            #expect(AbsoluteURI(url)?.isUnder(prefix) == true, "\(url)")
        }
        #expect(AbsoluteURI("https://go.pictlink.com:8443/x")?.isUnder(prefix) == false)
        #expect(AbsoluteURI("https://pictlink.com/product/1")?.isUnder(try DomainURIPrefix("https://pictlink.com/links")) == false)
    }
}
