import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkServer

/// Link previews filled from the destination page: a local site serves real, broken, huge, non-UTF-8 and hostile
/// pages; the fetcher's guards (allowlist, private addresses after DNS, redirects, time, size, content type) and
/// what crawlers are shown are checked against it.
@Suite("Page previews")
struct PagePreviewTests {
    typealias T = TestSupport

    /// Host names the tests resolve themselves: the site on loopback, and names that point somewhere private.
    struct FakeResolver: HostResolver {
        let calls = NIOLockedValueBox<[String]>([])

        func addresses(of host: String) async throws -> [String] {
            calls.withLockedValue { $0.append(host) }
            switch host {
            case "site.test": return ["127.0.0.1"]
            case "private.test": return ["10.0.0.5"]
            case "metadata.test": return ["169.254.169.254"]
            case "mixed.test": return ["127.0.0.1", "192.168.1.1"]
            case "mapped.test": return ["::ffff:10.1.2.3"]
            default: return []
            }
        }
    }

    /// The local site: every page a test needs, and the paths it was asked for.
    static func site(requests: NIOLockedValueBox<[String]>) -> some ApplicationProtocol {
        let router = Router()
        router.middlewares.add(RecordingMiddleware(requests: requests))
        @Sendable func html(_ text: String, type: String = "text/html; charset=utf-8") -> Response {
            Response(status: .ok, headers: [.contentType: type], body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("real") { _, _ in
            html(
                """
                <!doctype html><html><head><title>Ignored title</title>
                <meta property="og:title" content="Spring &amp; sale ☀️">
                <meta property="og:description" content="Everything   half\nprice">
                <meta property="og:image" content="/img/spring.png">
                <meta name="twitter:image" content="https://cdn.example/other.png">
                </head><body><p>hello</p></body></html>
                """)
        }
        router.get("based") { _, _ in
            html(
                """
                <html><head><base href="https://cdn.example/assets/"><base href="https://ignored.example/">
                <meta name="og:title" content="Based"><meta property="og:image" content="hero.jpg"></head></html>
                """)
        }
        router.get("fallback") { _, _ in
            html(
                """
                <html><head><title>  Plain
                title </title><meta name="description" content="From the description tag">
                <meta name="twitter:image" content="//cdn.example/t.png"><meta property="og:image" content="javascript:alert(1)"></head></html>
                """)
        }
        router.get("broken") { _, _ in
            html("<html><head><title>Broken <b>page</title><meta property=og:description content=unquoted><div><p>never closed<table><tr>")
        }
        router.get("huge") { _, _ in
            let head = #"<html><head><meta property="og:title" content="Huge page">"#
            let filler = String(repeating: "<p>filler text to make the page large</p>\n", count: 80_000)
            return html(head + filler + #"<meta property="og:description" content="after the first megabyte"></head></html>"#)
        }
        router.get("latin1") { _, _ in
            var buffer = ByteBuffer(string: "<html><head><meta property=\"og:title\" content=\"Caf")
            buffer.writeBytes([0xE9])  // é in ISO-8859-1
            buffer.writeString(" cr")
            buffer.writeBytes([0xE8])  // è
            buffer.writeString("me\"></head></html>")
            return Response(status: .ok, headers: [.contentType: "text/html; charset=iso-8859-1"], body: ResponseBody(byteBuffer: buffer))
        }
        router.get("sjis") { _, _ in
            var buffer = ByteBuffer(string: "<html><head><meta charset=\"Shift_JIS\"><title>")
            buffer.writeBytes([0x93, 0x8C, 0x8B, 0x9E])  // 東京 in Shift_JIS
            buffer.writeString("</title></head></html>")
            return Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody(byteBuffer: buffer))
        }
        router.get("entities") { request, _ in
            let port = request.head.authority?.split(separator: ":").last.map(String.init) ?? "80"
            return html(
                """
                <!DOCTYPE html SYSTEM "http://127.0.0.1:\(port)/evil.dtd" [<!ENTITY xxe SYSTEM "http://127.0.0.1:\(port)/evil-entity">]>
                <html><head><title>T &xxe; T</title><meta property="og:title" content="Entities &xxe;"></head></html>
                """)
        }
        router.get("json") { _, _ in html(#"{"og:title": "no"}"#, type: "application/json") }
        router.get("notfound") { _, _ in Response(status: .notFound) }
        router.get("slow") { _, _ in
            try await Task.sleep(for: .seconds(12))
            return html("<title>late</title>")
        }
        router.get("to-private") { _, _ in Response(status: .found, headers: [.location: "http://private.test/x"]) }
        router.get("to-metadata") { _, _ in Response(status: .found, headers: [.location: "http://169.254.169.254/latest/meta-data/"]) }
        router.get("to-real") { _, _ in Response(status: .movedPermanently, headers: [.location: "/real"]) }
        router.get("hop/:n") { _, context in
            let n = Int(context.parameters.get("n") ?? "0") ?? 0
            return Response(status: .found, headers: [.location: n == 0 ? "/real" : "/hop/\(n - 1)"])
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "site"))
    }

    struct RecordingMiddleware<Context: RequestContext>: RouterMiddleware {
        let requests: NIOLockedValueBox<[String]>
        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            requests.withLockedValue { $0.append(request.uri.path) }
            return try await next(request, context)
        }
    }

    /// A fetcher that may reach the site; with more time than the server's 2 s, so a loaded CI machine does not turn
    /// a redirect or a large page into a timeout (the timeout has its own test, with the real limit).
    static func fetcher(_ resolver: FakeResolver = FakeResolver(), timeout: Duration = .seconds(15)) -> SafeFetcher {
        var fetcher = SafeFetcher(policy: OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.1/32")!]), resolver: resolver)
        fetcher.timeout = timeout
        return fetcher
    }

    /// Runs `body` with the site's base URL (`http://site.test:PORT`) and the paths it was asked for.
    static func withSite(_ body: @Sendable (String, NIOLockedValueBox<[String]>) async throws -> Void) async throws {
        let requests = NIOLockedValueBox<[String]>([])
        try await site(requests: requests).test(.live) { client in
            try await body("http://site.test:\(try #require(client.port))", requests)
        }
    }

    static func preview(_ url: String, fetcher: SafeFetcher = fetcher()) async throws(SafeFetcher.FetchError) -> PagePreview {
        let page = try await fetcher.fetchHTML(url) { _ in nil }
        let document = try? HTMLDocument(parsing: page.body.readableBytesView, encoding: HTMLDocument.charset(ofContentType: page.contentType))
        return PagePreviewReader.preview(of: document ?? (try! HTMLDocument(parsing: page.body.readableBytesView)), url: page.url, fetchedAt: Date())
    }

    @Test func readsTheTagsOfRealBrokenAndForeignPages() async throws {
        try await Self.withSite { site, requests in
            let real = try await Self.preview(site + "/real")
            #expect(real.title == "Spring & sale ☀️")
            #expect(real.description == "Everything half price")
            #expect(real.imageURL == site + "/img/spring.png")

            let based = try await Self.preview(site + "/based")
            #expect(based.title == "Based")
            #expect(based.imageURL == "https://cdn.example/assets/hero.jpg")

            let fallback = try await Self.preview(site + "/fallback")
            #expect(fallback.title == "Plain title")
            #expect(fallback.description == "From the description tag")
            #expect(fallback.imageURL == "http://cdn.example/t.png")

            let broken = try await Self.preview(site + "/broken")
            #expect(broken.title == "Broken page")
            #expect(broken.description == "unquoted")

            let huge = try await SafeFetcher.fetchedPage(site + "/huge", Self.fetcher())
            #expect(huge.truncated)
            #expect(huge.body.readableBytes == 1 << 20)
            let hugePreview = try await Self.preview(site + "/huge")
            #expect(hugePreview.title == "Huge page")
            #expect(hugePreview.description == nil)

            #expect(try await Self.preview(site + "/latin1").title == "Café crème")
            #expect(try await Self.preview(site + "/sjis").title == "東京")

            // A DOCTYPE and entities pointing at the site: the parser fetches neither.
            let entities = try await Self.preview(site + "/entities")
            #expect(entities.title?.hasPrefix("Entities") == true)
            #expect(!requests.withLockedValue { $0 }.contains { $0.hasPrefix("/evil") })

            // Redirects are followed up to three, each one checked.
            #expect(try await Self.preview(site + "/to-real").title == "Spring & sale ☀️")
            #expect(try await Self.preview(site + "/hop/2").title == "Spring & sale ☀️")
        }
    }

    @Test(.measuresTime) func refusesWhatAServerSideFetchMustNotReach() async throws {
        try await Self.withSite { site, _ in
            let port = site.split(separator: ":").last!
            func refusal(
                _ url: String, fetcher: SafeFetcher = Self.fetcher(), check: @escaping @Sendable (String) -> String? = { _ in nil }
            )
                async -> SafeFetcher.FetchError?
            {
                do {
                    _ = try await fetcher.fetchHTML(url, check: check)
                    return nil
                } catch {
                    return error
                }
            }
            // Private, loopback outside the allowed /32, link-local, mapped and mixed answers: refused before connecting.
            for url in [
                "http://private.test/", "http://127.0.0.2:\(port)/real", "http://[::1]:\(port)/real", "http://metadata.test/",
                "http://mixed.test:\(port)/real", "http://mapped.test/", "http://169.254.169.254/latest/meta-data/", "http://0.0.0.0:\(port)/",
            ] {
                guard case .refusedAddress = await refusal(url) else {
                    Issue.record("\(url) was not refused for its address")
                    continue
                }
            }
            // A redirect to a private name or to the metadata address is checked like the first URL.
            guard case .refusedAddress = await refusal(site + "/to-private") else { throw Failure("redirect to private") }
            guard case .refusedAddress = await refusal(site + "/to-metadata") else { throw Failure("redirect to metadata") }
            #expect(await refusal(site + "/hop/3") == .tooManyRedirects(3))
            #expect(await refusal(site + "/json") == .notHTML("application/json"))
            #expect(await refusal(site + "/notfound") == .status(404))
            #expect(await refusal("ftp://site.test/x") == .badURL("ftp://site.test/x"))
            #expect(await refusal("http://user:pw@site.test:\(port)/real") == .badURL("http://user:pw@site.test:\(port)/real"))
            #expect(await refusal("http://nowhere.test/") == .noAddress("nowhere.test"))
            // The caller's rule (the allowlist) sees every URL, redirects included.
            let blocked = await refusal(site + "/to-real") { $0.hasSuffix("/real") ? "off the allowlist" : nil }
            #expect(blocked == .notAllowed("off the allowlist"))

            // Dot segments, plain or encoded, are refused: the allowlist reads the URL as written, a server may not.
            for path in ["/real/../x", "/real/%2e%2e/x", "/real/.%2E/x", "/real/..%2fx", "/./real"] {
                guard case .notAllowed = await refusal(site + path) else {
                    Issue.record("\(path) was not refused")
                    continue
                }
            }

            let started = ContinuousClock.now
            #expect(await refusal(site + "/slow", fetcher: Self.fetcher(timeout: SafeFetcher(resolver: FakeResolver()).timeout)) == .timedOut)
            // The page takes 12 s; the bound is the 2 s timeout's, with room for a loaded machine.
            #expect(ContinuousClock.now - started < .seconds(9))
        }
    }

    @Test func connectsToTheAddressItCheckedNotToASecondAnswer() async throws {
        // DNS rebinding: the first answer is the site, every later one private. The fetch asks once and connects
        // to what it checked.
        struct Rebinding: HostResolver {
            let calls = NIOLockedValueBox(0)
            func addresses(of host: String) async throws -> [String] {
                calls.withLockedValue { $0 += 1 }
                return calls.withLockedValue { $0 } == 1 ? ["127.0.0.1"] : ["10.0.0.1"]
            }
        }
        try await Self.withSite { site, _ in
            let resolver = Rebinding()
            var fetcher = SafeFetcher(policy: OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.1/32")!]), resolver: resolver)
            // What is tested is where it connects, not how fast: the suites running beside it load the machine.
            fetcher.timeout = .seconds(20)
            let page = try await fetcher.fetchHTML(site.replacingOccurrences(of: "site.test", with: "rebind.test") + "/real") { _ in nil }
            #expect(page.body.readableBytes > 0)
            #expect(resolver.calls.withLockedValue { $0 } == 1)
        }
    }

    @Test func crawlersSeeTheStoredPreviewOfALinkMintedWithFetching() async throws {
        try await Self.withSite { site, requests in
            var configuration = TestSupport.configuration
            let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
            configuration.projects[index].allowlist.patterns.append(try URLPattern(#"^http://site\.test:[0-9]+/.*$"#))
            configuration.projects[index].defaults = ProjectDefaults()
            let (store, key) = try await T.storeWithKey()
            var server = ServerConfiguration(host: "127.0.0.1", port: 0, relink: configuration, logLevel: .error, store: store)
            server.fetchPolicy = OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.1/32")!])
            server.hostResolver = FakeResolver()
            try await buildApplication(configuration: server).test(.live) { client in
                let body = try JSONEncoder().encode(
                    CreateShortLinkRequest(
                        longDynamicLink: "https://go.pictlink.com/?link=" + PercentEncoding.encodeQueryValue(site + "/real"), fetchPreview: true))
                let minted = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(bytes: body))
                #expect(minted.status == .ok, "\(minted.text)")
                let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
                let path = "/v1/links/" + PercentEncoding.encodeQueryValue(shortLink)
                var link: ManagedLink?
                for _ in 0..<100 {
                    let shown = try await client.execute(uri: path + "?key=\(key)", method: .get)
                    link = try JSONDecoder().decode(ManagedLink.self, from: shown.data)
                    if link?.preview != nil { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(link?.fetchPreview == true)
                #expect(link?.preview?.title == "Spring & sale ☀️")
                #expect(requests.withLockedValue { $0 }.filter { $0 == "/real" }.count == 1)

                for agent in [T.Agent.crawler, "Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)"] {
                    // In absolute form: the live client sends its own `Host: localhost`.
                    let card = try await client.execute(uri: shortLink, method: .get, headers: [.userAgent: agent])
                    #expect(card.status == .ok, "\(agent)")
                    #expect(card.text.contains(#"<meta property="og:title" content="Spring &amp; sale ☀️">"#), "\(agent)")
                    #expect(card.text.contains(#"<meta property="og:description" content="Everything half price">"#), "\(agent)")
                    #expect(card.text.contains(#"<meta property="og:image" content="\#(site)/img/spring.png">"#), "\(agent)")
                }
                // Clicks never fetch: the page was asked for once, when the link was minted.
                #expect(requests.withLockedValue { $0 }.filter { $0 == "/real" }.count == 1)

                // On demand, and a page that went away keeps the last card and says why.
                let refreshed = try await client.execute(uri: path + "/refreshPreview?key=\(key)", method: .post)
                #expect(try JSONDecoder().decode(ManagedLink.self, from: refreshed.data).preview?.failure == nil)
                #expect(requests.withLockedValue { $0 }.filter { $0 == "/real" }.count == 2)
            }
        }
    }

    @Test func cardsDropBidirectionalOverridesAndControlCharacters() {
        let preview = PagePreview(title: "\u{202E}gnp.exe\u{202C} Sale\u{0}\u{9B}", description: "a\u{2066}b", fetchedAt: Date())
        #expect(preview.title == "gnp.exe Sale")
        #expect(preview.description == "ab")
    }

    @Test func onDemandRefreshesAreCappedPerServer() async throws {
        try await Self.withSite { site, _ in
            var configuration = TestSupport.configuration
            let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
            configuration.projects[index].allowlist.patterns.append(try URLPattern(#"^http://site\.test:[0-9]+/.*$"#))
            let (store, key) = try await T.storeWithKey()
            var server = ServerConfiguration(host: "127.0.0.1", port: 0, relink: configuration, logLevel: .error, store: store)
            server.fetchPolicy = OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.1/32")!])
            server.hostResolver = FakeResolver()
            try await buildApplication(configuration: server).test(.live) { client in
                let minted = try await T.mint(
                    "https://go.pictlink.com/?link=" + PercentEncoding.encodeQueryValue(site + "/slow"), key: key, with: client)
                let path = "/v1/links/" + PercentEncoding.encodeQueryValue(minted.shortLink) + "/refreshPreview?key=\(key)"
                // Separate connections, all at once (the test client sends one request at a time).
                let url = "http://127.0.0.1:\(try #require(client.port))" + path
                let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                    for _ in 0..<(PreviewService.maximumOnDemand + 3) {
                        group.addTask {
                            var request = HTTPClientRequest(url: url)
                            request.method = .POST
                            return try await HTTPClient.shared.execute(request, timeout: .seconds(30)).status.code
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(statuses.filter { $0 == 200 }.count == PreviewService.maximumOnDemand, "\(statuses)")
                #expect(statuses.filter { $0 == 429 }.count == 3, "\(statuses)")
            }
        }
    }

    @Test func addressPolicyNamesEveryNonPublicRange() {
        let policy = OutboundAddressPolicy()
        for text in [
            "10.1.2.3", "172.16.0.1", "192.168.0.1", "127.0.0.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "240.0.0.1",
            "::1", "fe80::1", "fc00::1", "fd12::1", "::ffff:127.0.0.1", "64:ff9b::a00:1", "2002:a00:1::", "2001:0:0:0:0:0:f5ff:fffe", "::",
            "::7f00:1", "ff02::1",
        ] {
            #expect(policy.refusal(IPAddress(text)!) != nil, "\(text)")
        }
        for text in ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "2002:5db8:d822::"] {
            #expect(policy.refusal(IPAddress(text)!) == nil, "\(text)")
        }
        #expect(OutboundAddressPolicy(allowed: [IPNetwork("10.0.0.0/8")!]).refusal(IPAddress("10.9.9.9")!) == nil)
    }

    /// IPv4-translated addresses (`::ffff:0:0/96`) count as the IPv4 address they carry, like every other form of
    /// IPv4 inside IPv6 (an attack reached loopback through `[::ffff:0:7f00:1]`); so does the local-use NAT64 prefix.
    @Test func addressPolicyReadsIPv4TranslatedAddresses() {
        let policy = OutboundAddressPolicy()
        for text in ["::ffff:0:7f00:1", "::ffff:0:127.0.0.1", "::ffff:0:a00:1", "::ffff:0:a9fe:a9fe", "64:ff9b:1::a00:1", "64:ff9b:1::808:808"] {
            #expect(policy.refusal(IPAddress(text)!) != nil, "\(text)")
        }
        #expect(policy.refusal(IPAddress("::ffff:0:808:808")!) == nil)
        #expect(OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.0/8")!]).refusal(IPAddress("::ffff:0:7f00:1")!) == nil)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}

extension SafeFetcher {
    /// The page itself, for the size test.
    static func fetchedPage(_ url: String, _ fetcher: SafeFetcher) async throws -> Page {
        try await fetcher.fetchHTML(url) { _ in nil }
    }
}
