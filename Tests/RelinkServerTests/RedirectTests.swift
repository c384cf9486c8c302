import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

@Suite("Redirects")
struct RedirectTests {
    typealias T = TestSupport

    /// Where a click with this User-Agent on this path goes.
    static func click(
        _ path: String, agent: String, host: String = "go.pictlink.com", method: HTTPRequest.Method = .get
    ) async throws -> TestResponse {
        let app = try T.application()
        return try await app.test(.router) { client in
            try await client.execute(uri: path, method: method, headers: T.headers(host: host, agent: agent))
        }
    }

    /// Another method on a link is a 405 saying which methods links answer (it was an empty 404); under /v1 it stays
    /// the API's JSON 404.
    @Test func otherMethodsOnALinkAre405() async throws {
        for method: HTTPRequest.Method in [.post, .put, .delete, .patch, .options] {
            for path in ["/p/42", "/?" + T.sampleQuery, "/unknown"] {
                let response = try await Self.click(path, agent: T.Agent.desktop, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == "GET, HEAD")
                #expect(response.text.contains("GET and HEAD"))
            }
            let api = try await Self.click("/v1/nothing", agent: T.Agent.desktop, method: method)
            #expect(api.status == .notFound, "\(method)")
            #expect(api.text.contains("No such API method"), "\(method): \(api.text)")
        }
    }

    /// A path below one Relink serves itself gets the answer of any other path without a link (they were empty
    /// 404s: the router does not go back to `**` from a path it began to follow), and its files are still served.
    @Test func pathsBelowServedOnesAreAnsweredAsUnknownPaths() async throws {
        let unknown = try await Self.click("/no/such/path", agent: T.Agent.desktop)
        #expect(unknown.status == .notFound)
        let paths = [
            "/healthz/x", "/.well-known", "/.well-known/", "/.well-known/x", "/.well-known/assetlinks.json/x", "/apple-app-site-association/x",
            "/metrics/x",
        ]
        for path in paths {
            let response = try await Self.click(path, agent: T.Agent.desktop)
            #expect(response.status == .notFound, "\(path)")
            #expect(response.headers[.contentType] == unknown.headers[.contentType], "\(path)")
            #expect(!response.text.isEmpty, "\(path)")
            let post = try await Self.click(path, agent: T.Agent.desktop, method: .post)
            #expect(post.status == .methodNotAllowed, "\(path)")
        }
        for path in ["/healthz", "/.well-known/assetlinks.json", "/.well-known/apple-app-site-association", "/apple-app-site-association"] {
            #expect(try await Self.click(path, agent: T.Agent.desktop).status == .ok, "\(path)")
            // Another method on what Relink serves, or one no route knows anywhere, is refused as on a link.
            for method in [HTTPRequest.Method.post, .delete, HTTPRequest.Method("TRACE")!, HTTPRequest.Method("PROPFIND")!] {
                let refused = try await Self.click(path, agent: T.Agent.desktop, method: method)
                #expect(refused.status == .methodNotAllowed && refused.headers[.allow] == "GET, HEAD", "\(method) \(path)")
            }
        }
        for method in [HTTPRequest.Method("TRACE")!, HTTPRequest.Method("PROPFIND")!] {
            #expect(try await Self.click("/p/42", agent: T.Agent.desktop, method: method).status == .methodNotAllowed, "\(method)")
        }
    }

    @Test func androidGoesToPlay() async throws {
        let response = try await Self.click("/?" + T.sampleQuery + "&utm_source=mail", agent: T.Agent.android)
        #expect(response.status == .found)
        #expect(
            response.locationWithoutClickID == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Dmail")
        #expect(response.location?.contains("&referrer=relink_click%3D") == true)
        #expect(response.headers[.cacheControl] == "no-store")
    }

    @Test func desktopGoesToTheProjectsDesktopFallback() async throws {
        let response = try await Self.click("/?" + T.sampleQuery, agent: T.Agent.desktop)
        #expect(response.status == .found)
        #expect(response.location == "https://pictlink.com")
        let withOfl = try await Self.click("/?" + T.sampleQuery + "&ofl=https%3A%2F%2Fpictlink.com%2Fweb", agent: T.Agent.desktop)
        #expect(withOfl.location == "https://pictlink.com/web")
    }

    @Test func iPhoneGetsThePreviewPage() async throws {
        let response = try await Self.click("/?" + T.sampleQuery, agent: T.Agent.iPhone)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.text.contains(#"<a class="button" id="open" href="https://apps.apple.com/app/id000000001""#))
        #expect(response.text.contains(#"<a href="https://pictlink.com/myPage">Continue on the web</a>"#))
        let csp = try #require(response.headers[.contentSecurityPolicy])
        #expect(csp.hasPrefix("default-src 'none'; style-src 'sha256-"))
        #expect(!csp.contains("unsafe-inline"))
        // The one script is the page's own, allowed by its hash; nothing is loaded from elsewhere.
        let script = try #require(response.text.firstMatch(of: /<script>(.*)<\/script>/)?.1)
        let hash = Data(SHA256.hash(data: Data(script.utf8))).base64EncodedString()
        #expect(csp.contains("script-src 'sha256-\(hash)'"))
        #expect(!response.text.contains("<script src"))
        #expect(!response.text.contains("<link rel=\"stylesheet\""))
    }

    @Test func efrRedirectsIOSStraightToTheStore() async throws {
        let response = try await Self.click("/?" + T.sampleQuery + "&efr=1", agent: T.Agent.iPhone)
        #expect(response.status == .found)
        #expect(response.location == "https://apps.apple.com/app/id000000001")
    }

    @Test func inAppBrowsersGetThePreviewPageEvenWithEfr() async throws {
        let response = try await Self.click("/?" + T.sampleQuery + "&efr=1", agent: T.Agent.instagram)
        #expect(response.status == .ok)
        #expect(response.text.contains("apps.apple.com/app/id000000001"))
    }

    @Test func iPadUsesIPadParameters() async throws {
        let query = T.sampleQuery + "&efr=1&ipbi=jp.furyu.pictlink.studio.ipad&ipfl=https%3A%2F%2Fpictlink.com%2Fipad"
        #expect(try await Self.click("/?" + query, agent: T.Agent.iPad).location == "https://pictlink.com/ipad")
        #expect(try await Self.click("/?" + query, agent: T.Agent.iPhone).location == "https://apps.apple.com/app/id000000001")
    }

    @Test func routesResolveLikeLongLinks() async throws {
        #expect(try await Self.click("/p/42", agent: T.Agent.iPhone).location == "https://apps.apple.com/app/id000000001")
        #expect(try await Self.click("/p/42", agent: T.Agent.desktop).location == "https://pictlink.com")
        let android = try await Self.click("/campaign/spring", agent: T.Agent.android)
        #expect(
            android.locationWithoutClickID
                == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Demail%26utm_medium%3Dnewsletter%26utm_campaign%3Dspring"
        )
        // fieldnotes' route, on its own domain, with its own apps.
        let fieldnotes = try await Self.click("/note/7", agent: T.Agent.android, host: "go.fieldnotes.app")
        #expect(fieldnotes.locationWithoutClickID == "https://play.google.com/store/apps/details?id=app.fieldnotes.android")
    }

    @Test func aPrefixWithAPathServesUnderItsPath() async throws {
        let response = try await Self.click("/links/?" + T.sampleQuery + "&efr=1", agent: T.Agent.iPhone, host: "pictlink.com")
        #expect(response.location == "https://apps.apple.com/app/id000000001")
        #expect(try await Self.click("/links/p/42", agent: T.Agent.desktop, host: "pictlink.com").location == "https://pictlink.com")
        #expect(try await Self.click("/elsewhere", agent: T.Agent.desktop, host: "pictlink.com").status == .notFound)
    }

    @Test func crawlersGetOpenGraphTagsAndAreNotRedirected() async throws {
        let query = T.sampleQuery + "&st=Spring%20sale&sd=Half%20price&si=https%3A%2F%2Fpictlink.com%2Fspring.png"
        let response = try await Self.click("/?" + query, agent: T.Agent.crawler)
        #expect(response.status == .ok)
        for tag in [
            #"<meta property="og:title" content="Spring sale">"#, #"<meta property="og:description" content="Half price">"#,
            #"<meta property="og:image" content="https://pictlink.com/spring.png">"#,
            #"<meta property="og:url" content="https://pictlink.com/myPage">"#,
            #"<meta name="twitter:card" content="summary_large_image">"#, #"<meta name="twitter:title" content="Spring sale">"#,
            #"<meta name="twitter:image" content="https://pictlink.com/spring.png">"#,
            #"<link rel="canonical" href="https://pictlink.com/myPage">"#,
        ] {
            #expect(response.text.contains(tag), "missing \(tag)")
        }
    }

    @Test func headIsNeverAClickAndHasNoBody() async throws {
        let response = try await Self.click("/?" + T.sampleQuery, agent: T.Agent.iPhone, method: .head)
        #expect(response.status == .ok)
        #expect(response.bodyLength == 0)
    }

    /// `--dev-host`: a browser on the developer's machine opens the debug page on 127.0.0.1 or localhost; without it,
    /// or on a host a project serves, hosts keep picking projects as in production.
    @Test(arguments: ["127.0.0.1:8080", "localhost:8080", "[::1]:8080", "LOCALHOST"])
    func aLoopbackHostServesTheDevelopmentProject(_ host: String) async throws {
        var server = ServerConfiguration(host: "127.0.0.1", port: 0, relink: T.configuration, logLevel: .error, store: try SQLiteStore())
        server.developmentProject = "pictlink"
        try await buildApplication(configuration: server).test(.router) { client in
            let page = try await client.execute(
                uri: "/?" + T.sampleQuery + "&d=1", method: .get, headers: T.headers(host: host, agent: T.Agent.desktop))
            #expect(page.status == .ok)
            #expect(String(buffer: page.body).contains("https://go.pictlink.com/?link="))
            let other = try await client.execute(
                uri: "/?" + T.sampleQuery + "&d=1", method: .get, headers: T.headers(host: "127.0.0.2:8080", agent: T.Agent.desktop))
            #expect(other.status == .notFound)
        }
        let production = try await Self.click("/?" + T.sampleQuery + "&d=1", agent: T.Agent.desktop, host: host)
        #expect(production.status == .notFound)
    }

    @Test func debugPageShowsEveryPlatform() async throws {
        let response = try await Self.click("/?" + T.sampleQuery + "&d=1&utm_id=1", agent: T.Agent.desktop)
        #expect(response.status == .ok)
        let page = response.text
        for text in [
            "iPhone, app installed", "iPhone, app not installed", "iPad", "Android", "Desktop", "Link-preview crawler",
            "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android", "UNRECOGNIZED_PARAM", "<svg ",
        ] {
            #expect(page.contains(text), "missing \(text)")
        }
        #expect(try await Self.click("/p/42?d=1", agent: T.Agent.android).text.contains("route /p/{id}"))
    }

    @Test func unknownHostsPathsAndCodesAre404() async throws {
        let host = try await Self.click("/abc", agent: T.Agent.desktop, host: "unknown.example")
        #expect(host.status == .notFound)
        #expect(host.text.contains("Relink serves no project on unknown.example"))
        let code = try await Self.click("/Ab3x", agent: T.Agent.desktop)
        #expect(code.status == .notFound)
        #expect(code.text.contains("Dynamic Link Not Found"))
        #expect(code.text.contains("Short URL (https://go.pictlink.com/Ab3x) not found."))
        #expect(code.headers[HTTPField.Name("X-Robots-Tag")!] == "noindex")
        #expect(try await Self.click("/a/b/c", agent: T.Agent.desktop).status == .notFound)
        #expect(try await Self.click("/", agent: T.Agent.desktop).status == .notFound)
    }

    @Test(arguments: ["ofl", "afl", "ifl", "ipfl", "al"])
    func destinationsOutsideTheAllowlistAre400(parameter: String) async throws {
        let response = try await Self.click("/?" + T.sampleQuery + "&\(parameter)=https%3A%2F%2Fevil.example%2Fphish", agent: T.Agent.desktop)
        #expect(response.status == .badRequest)
        #expect(response.location == nil)
        #expect(response.text.contains("We could not match param &#39;https://evil.example/phish&#39; (\(parameter)) with allowlisted URL patterns"))
        #expect(response.text.contains("^https://pictlink\\.com(/.*)?$"))
    }

    @Test func invalidLinksAre400() async throws {
        let response = try await Self.click("/?link=javascript:alert(1)", agent: T.Agent.desktop)
        #expect(response.status == .badRequest)
        #expect(response.text.contains("&#39;link&#39; must be an http or https URL"))
        let other = try await Self.click("/?link=https%3A%2F%2Fgo.fieldnotes.app%2Fx", agent: T.Agent.desktop)
        #expect(other.status == .badRequest)
    }

    @Test func hostileSocialValuesAreEscaped() async throws {
        let st = "\"><script>alert(1)</script>"
        let sd = "</title><img src=x onerror=alert(2)>"
        let query =
            T.sampleQuery + "&st=" + PercentEncoding.encodeQueryValue(st) + "&sd=" + PercentEncoding.encodeQueryValue(sd)
            + "&si=" + PercentEncoding.encodeQueryValue("https://pictlink.com/x.png\"onload=\"alert(3)")
        for agent in [T.Agent.iPhone, T.Agent.crawler] {
            let page = try await Self.click("/?" + query, agent: agent).text
            #expect(!page.contains("<script>alert"))
            #expect(!page.contains("<img src=x"))
            #expect(!page.contains("\"onload=\""))
            #expect(page.contains("&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
        let debug = try await Self.click("/?" + query + "&d=1", agent: T.Agent.desktop).text
        #expect(!debug.contains("<script>alert"))
        #expect(!debug.contains("<img src=x"))
    }

    @Test func locationsAreAlwaysValidURLs() async throws {
        // A destination with a raw space and non-ASCII after decoding is re-encoded for the Location header.
        let destination = PercentEncoding.encodeQueryValue("https://pictlink.com/a b?q=é")
        let response = try await Self.click("/?link=\(destination)&ofl=\(destination)", agent: T.Agent.desktop)
        #expect(response.status == .found)
        #expect(response.location == "https://pictlink.com/a%20b?q=%C3%A9")
    }

    @Test func forwardedHeadersAreTrustedOnlyWhenConfigured() async throws {
        let headers: HTTPFields = [
            HTTPField.Name("Host")!: "internal.example", .userAgent: T.Agent.desktop, HTTPField.Name("X-Forwarded-Host")!: "go.pictlink.com",
        ]
        let trusting = try T.application(trustForwardedHeaders: true)
        try await trusting.test(.router) { client in
            let response = try await client.execute(uri: "/p/42", method: .get, headers: headers)
            #expect(response.location == "https://pictlink.com")
        }
        let strict = try T.application()
        try await strict.test(.router) { client in
            let response = try await client.execute(uri: "/p/42", method: .get, headers: headers)
            #expect(response.status == .notFound)
        }
    }

    @Test func healthz() async throws {
        let response = try await Self.click("/healthz", agent: T.Agent.desktop, host: "anything.example")
        #expect(response.status == .ok)
        #expect(response.text == #"{"status":"ok","projects":2}"#)
    }
}
