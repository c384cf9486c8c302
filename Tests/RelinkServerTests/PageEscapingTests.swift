import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PropertyBased
import RelinkCore
import RelinkServer
import RelinkStore
import RelinkTestSupport
import Testing

/// Attacks every page with text built from what hides markup from `Character`-based escapers: prepended
/// concatenation marks (which merge with a `<` after them), combining marks (which merge with a `"` or `>`
/// before them), ZWJ sequences and variation selectors, next to quotes and angle brackets. Each page is parsed
/// with libxml2's HTML parser and must have exactly the elements and attributes of the same page rendered with
/// a harmless twin of the text (every `<`, `>`, `"`, `'` and `&` replaced by `x`), and every attribute that
/// carries the text must carry all of it.
@Suite("Page escaping", .loadsTheMachine)
struct PageEscapingTests {
    typealias T = TestSupport

    /// The issue's proof of concept: U+0600 before `<meta …>`, U+0301 after it.
    static let metaRefresh = "\u{600}<meta http-equiv=refresh content=0;url=https://evil.test/>\u{301}"

    static let prependedMarks: [Unicode.Scalar] = [
        "\u{600}", "\u{601}", "\u{602}", "\u{603}", "\u{604}", "\u{605}", "\u{6DD}", "\u{70F}", "\u{890}", "\u{891}", "\u{8E2}",
        "\u{110BD}", "\u{110CD}",
    ]
    static let combiningMarks: [Unicode.Scalar] = ["\u{301}", "\u{300}", "\u{20D2}", "\u{327}", "\u{1AB0}", "\u{FE20}", "\u{36F}"]
    static let joiners: [String] = ["\u{200D}", "\u{FE0F}", "\u{FE0E}", "\u{E0100}", "👩\u{200D}👩\u{200D}👧", "🏳\u{FE0F}\u{200D}🌈", "❤\u{FE0F}"]
    static let markup: [String] = [
        "<", ">", "\"", "'", "&", "=", " ", "/", ";", "<meta http-equiv=refresh content=0;url=https://evil.test/>", "\" onmouseover=\"alert(1)",
        "' onfocus='x", "<script>alert(1)</script>", "</title>", "</textarea>", "<!--", "-->", "<svg onload=alert(1)>", "&lt;", "&#x3C;",
        "<img src=x onerror=alert(1)>", "\"><b>", "a", "é", "日本",
    ]

    /// Hostile text: mostly marks and markup, in random order.
    static let hostile = Generator<String, Shrink.None<String>> { rng in
        var text = ""
        for _ in 0..<Int.random(in: 1...10, using: &rng) {
            switch Int.random(in: 0..<10, using: &rng) {
            case 0...2: text.unicodeScalars.append(prependedMarks.randomElement(using: &rng)!)
            case 3...4: text.unicodeScalars.append(combiningMarks.randomElement(using: &rng)!)
            case 5: text += joiners.randomElement(using: &rng)!
            default: text += markup.randomElement(using: &rng)!
            }
        }
        return text
    }

    /// The same text with nothing HTML cares about.
    static func twin(_ text: String) -> String {
        var twin = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            twin.append("<>\"'&".unicodeScalars.contains(scalar) ? "x" : scalar)
        }
        return String(twin)
    }

    /// Every page and every field of it that shows request text.
    enum Page: CaseIterable {
        /// iPhone preview: title, description, image, web link.
        case preview
        /// Link-preview crawler: Open Graph tags and canonical link.
        case crawler
        /// The `d=1` page: the table, the problems list and the SVG flowchart.
        case debug
        /// A link that can never redirect: its error messages quote the values.
        case rejected
        /// An unknown path on a link domain.
        case notFound

        func request(_ value: String) -> (path: String, agent: String) {
            let v = PercentEncoding.encodeComponent(value)
            let social = "&st=\(v)&sd=\(v)&si=https%3A%2F%2Fimg.test%2F\(v)"
            let link = "link=https%3A%2F%2Fpictlink.com%2Fp%3Fq%3D\(v)&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&isi=000000001"
            switch self {
            case .preview: return ("/?" + link + social, T.Agent.iPhone)
            case .crawler: return ("/?" + link + social, T.Agent.crawler)
            case .debug: return ("/?" + link + social + "&ofl=https%3A%2F%2Fpictlink.com%2F\(v)&amv=\(v)&d=1", T.Agent.desktop)
            case .rejected: return ("/?link=javascript%3A\(v)&ofl=\(v)", T.Agent.iPhone)
            case .notFound: return ("/links/\(v)/\(v)", T.Agent.desktop)
            }
        }
    }

    /// Renders `value` on `page` and its twin, and compares what an HTML parser makes of them.
    static func check(_ page: Page, _ text: String, client: some TestClientProtocol) async throws {
        // Markers around the text, so that finding its twin in an attribute means the attribute carries it.
        let value = "zqj" + text + "jqz"
        let (path, agent) = page.request(value)
        let twinValue = twin(value)
        let (twinPath, _) = page.request(twinValue)
        let hostile = try await client.execute(uri: path, method: .get, headers: T.headers(agent: agent))
        let harmless = try await client.execute(uri: twinPath, method: .get, headers: T.headers(agent: agent))
        #expect(hostile.status == harmless.status, "\(page) \(value.debugDescription)")
        let parsed = try PageSkeleton(parsing: hostile.text)
        let expected = try PageSkeleton(parsing: harmless.text)
        #expect(parsed.skeleton == expected.skeleton, "\(page) \(value.debugDescription)\n\(hostile.text)")
        guard parsed.skeleton == expected.skeleton else { return }
        // An attribute value that ended early would lose the rest of the text.
        for (element, twinElement) in zip(parsed.elements, expected.elements) {
            for (attribute, twinAttribute) in zip(element.attributes, twinElement.attributes) where twinAttribute.value.contains(twinValue) {
                // URL attributes carry it percent-encoded, once or (inside a store referrer) twice.
                let once = attribute.value.removingPercentEncoding ?? attribute.value
                let twice = once.removingPercentEncoding ?? once
                #expect(
                    [attribute.value, once, twice].contains { $0.contains(value) },
                    "\(page) <\(element.name) \(attribute.name)> is \(attribute.value.debugDescription), not all of \(value.debugDescription)")
            }
        }
    }

    @Test(arguments: Page.allCases)
    func theIssuesMetaRefreshIsEscaped(page: Page) async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            try await Self.check(page, Self.metaRefresh, client: client)
            let response = try await client.execute(
                uri: page.request(Self.metaRefresh).path, method: .get, headers: T.headers(agent: page.request("").agent))
            #expect(!response.text.contains("<meta http-equiv=refresh"))
        }
    }

    @Test func theIssuesRequestAnswersEscapedText() async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            let query = "link=%D8%80%3Cmeta%20http-equiv%3Drefresh%20content%3D0%3Burl%3Dhttps%3A%2F%2Fevil.test%2F%3E%CC%81"
            for agent in [T.Agent.iPhone, T.Agent.desktop, T.Agent.crawler, T.Agent.android] {
                let response = try await client.execute(uri: "/?" + query, method: .get, headers: T.headers(agent: agent))
                #expect(!response.text.contains("<meta http-equiv=refresh"))
                #expect(response.location.map { !$0.contains("evil.test") } ?? true)
            }
        }
    }

    /// The attack through a short link minted by the API: its social title, description and deep link reach the
    /// preview, crawler and debug pages escaped.
    @Test func aMintedShortLinkIsEscapedOnEveryPage() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        let attack = Self.metaRefresh.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\u%04X", $0.value) }.joined()
            .replacingOccurrences(of: "\"", with: "\\\"")
        let json = """
            {"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "link": "https://pictlink.com/p?q=\(attack)",
              "iosInfo": {"iosBundleId": "jp.furyu.pictlink.ios", "iosAppStoreId": "000000001"},
              "socialMetaTagInfo": {"socialTitle": "\(attack)", "socialDescription": "\(attack)"}}}
            """
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [.authorization: "Bearer \(key)"], body: ByteBuffer(string: json))
            #expect(response.status == .ok, "\(response.text)")
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: response.data).shortLink
            let path = try #require(AbsoluteURI(shortLink)).path
            for (query, agent) in [("", T.Agent.iPhone), ("", T.Agent.crawler), ("?d=1", T.Agent.desktop)] {
                let page = try await client.execute(uri: path + query, method: .get, headers: T.headers(agent: agent))
                #expect(page.status == .ok)
                #expect(!page.text.contains("<meta http-equiv=refresh"), "\(agent): \(page.text)")
                #expect(page.text.contains("&lt;meta http-equiv=refresh"), "\(agent) does not show the title")
            }
        }
    }

    /// 10,000 random attacks spread over every page.
    @Test func everyPageKeepsItsStructure() async throws {
        // Every page from one client without an address: each preview keeps its click (`data-click`), as its twin's does.
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, relink: T.configuration, logLevel: .error, store: try SQLiteStore())
        configuration.keptClicksPerNetwork = RateLimit(requestsPerSecond: 100_000, burst: 100_000)
        let app = try buildApplication(configuration: configuration)
        let pages = Generator<Page, Shrink.None<Page>> { rng in Page.allCases.randomElement(using: &rng)! }
        try await app.test(.router) { client in
            await propertyCheck(count: 10_000, input: pages, Self.hostile) { page, value in
                do {
                    try await Self.check(page, value, client: client)
                } catch {
                    Issue.record(error)
                }
            }
        }
    }

    @Test func escaperWorksOnScalarsNotCharacters() {
        // Each of these is one Character in Swift, with a markup character inside it.
        #expect(HTMLEscaper.escape("\u{600}<") == "\u{600}&lt;")
        #expect(HTMLEscaper.escape("\"\u{301}") == "&quot;\u{301}")
        #expect(HTMLEscaper.escape(">\u{20D2}") == "&gt;\u{20D2}")
        #expect(HTMLEscaper.escape("a&b'c") == "a&amp;b&#39;c")
        #expect(HTMLEscaper.escape("日本語 😀") == "日本語 😀")
    }
}
