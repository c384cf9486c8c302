import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// Rules and variants on the click path: minted through the API, decided per click from the country header, the
/// language and the platform, shown on the debug page, refused with every problem named.
@Suite("Link rules on clicks")
struct LinkRulesTests {
    typealias T = TestSupport

    /// Behind a trusted proxy (the test client counts as one), which sets `CF-IPCountry`.
    static func application(
        store: SQLiteStore, configuration: RelinkConfiguration = T.configuration, forwardedHeaders: ForwardedHeaderPolicy = T.trustingTestClient
    ) throws -> some ApplicationProtocol {
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: configuration, forwardedHeaders: forwardedHeaders, logLevel: .error, store: store)
        server.countryHeader = "CF-IPCountry"
        return try buildApplication(configuration: server)
    }

    static func mint(_ request: CreateShortLinkRequest, key: String, client: some TestClientProtocol) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try JSONEncoder().encode(request)))
    }

    static let rules = LinkRules(rules: [
        LinkRule(
            name: "Spain", when: RuleCondition(countries: ["ES"]),
            then: DestinationOverride(link: "https://pictlink.com/es", ofl: "https://pictlink.com/es/web")),
        LinkRule(name: "Portuguese", when: RuleCondition(languages: ["pt"]), then: DestinationOverride(ofl: "https://pictlink.com/pt")),
        LinkRule(
            name: "Android 14+", when: RuleCondition(platforms: ["android"], osVersion: VersionRange(min: "14")),
            then: DestinationOverride(afl: "https://pictlink.com/new-android")),
    ])

    /// On a server without a country source, a country rule is accepted with a warning (minting, reading, changing)
    /// and the start says once how many stored links have one; with a source, no warning.
    @Test func countryRulesWithoutACountrySourceAreWarnedAbout() async throws {
        let (store, key) = try await T.storeWithKey()
        let lines = ObservabilityTests.LogLines()
        var server = ServerConfiguration(host: "127.0.0.1", port: 0, relink: T.configuration, logLevel: .info, store: store)
        server.logger = lines.logger(level: .info)
        let withoutSource = try buildApplication(configuration: server)
        let code = LinkWarningCode.countryRulesWithoutCountrySource.rawValue
        try await withoutSource.test(.router) { client in
            let minted = try await Self.mint(
                CreateShortLinkRequest(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fc", rules: Self.rules),
                key: key, client: client)
            #expect(minted.status == .ok)
            #expect(minted.text.contains(code))
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
            let read = try await client.execute(uri: "/v1/links/\(PercentEncoding.encodeQueryValue(shortLink))?key=\(key)", method: .get)
            #expect(try JSONDecoder().decode(ManagedLink.self, from: read.data).warning?.map(\.warningCode) == [code])
            let plain = try await Self.mint(
                CreateShortLinkRequest(
                    longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fd",
                    rules: LinkRules(rules: [Self.rules.rules[1]])), key: key, client: client)
            #expect(!plain.text.contains(code))
        }
        // The next start, on the same store: one line for the stored link.
        try await buildApplication(configuration: server).test(.router) { _ in
            for _ in 0..<100 where !lines.all.contains(where: { $0.contains("1 stored link(s)") }) { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(lines.all.filter { $0.contains("1 stored link(s) have rules that ask for the click's country") }.count == 1)
        server.countryHeader = "CF-IPCountry"
        try await buildApplication(configuration: server).test(.router) { client in
            let minted = try await Self.mint(
                CreateShortLinkRequest(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fe", rules: Self.rules),
                key: key, client: client)
            #expect(minted.status == .ok)
            #expect(!minted.text.contains(code))
        }
    }

    @Test func eachClickGetsTheFirstMatchingRule() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store: store).test(.router) { client in
            let request = CreateShortLinkRequest(
                longDynamicLink:
                    "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fspring&apn=jp.furyu.pictlink.android&ofl=https%3A%2F%2Fpictlink.com%2Fweb",
                rules: Self.rules)
            let minted = try await Self.mint(request, key: key, client: client)
            #expect(minted.status == .ok, "\(minted.text)")
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
            let path = String(shortLink.dropFirst("https://go.pictlink.com".count))
            func location(_ agent: String, _ extra: HTTPFields = [:]) async throws -> String? {
                var headers = T.headers(agent: agent)
                headers.append(contentsOf: extra)
                return try await client.execute(uri: path, method: .get, headers: headers).headers[.location]
            }
            #expect(try await location(T.Agent.desktop) == "https://pictlink.com/web")
            #expect(try await location(T.Agent.desktop, [HTTPField.Name("CF-IPCountry")!: "es"]) == "https://pictlink.com/es/web")
            #expect(try await location(T.Agent.desktop, [HTTPField.Name("CF-IPCountry")!: "XX"]) == "https://pictlink.com/web")
            #expect(try await location(T.Agent.desktop, [.acceptLanguage: "pt-BR,pt;q=0.9"]) == "https://pictlink.com/pt")
            // Spain comes first: a Portuguese speaker in Spain gets the Spanish page.
            #expect(
                try await location(T.Agent.desktop, [.acceptLanguage: "pt-BR", HTTPField.Name("CF-IPCountry")!: "ES"])
                    == "https://pictlink.com/es/web")
            let android = try await location(T.Agent.android)
            let androidDebug = try await client.execute(uri: path + "?d=1", method: .get, headers: T.headers(agent: T.Agent.android)).text
            #expect(
                android == "https://pictlink.com/new-android",
                "\(android ?? "-") \(androidDebug.split(separator: "\n").filter { $0.contains("<li>") })")

            // The debug page says why, for this request.
            let debug = try await client.execute(
                uri: path + "?d=1", method: .get, headers: T.headers(agent: T.Agent.desktop) + [.acceptLanguage: "pt"])
            #expect(debug.text.contains("<h2>Rules for this request</h2>"))
            #expect(debug.text.contains("<li>rule 1 (Spain): no, the country is unknown</li>"))
            #expect(debug.text.contains("<li>rule 2 (Portuguese): matches</li>"))

            // The rules come back with the link.
            let shown = try await client.execute(uri: "/v1/links/\(PercentEncoding.encodeQueryValue(shortLink))?key=\(key)", method: .get)
            #expect(try JSONDecoder().decode(ManagedLink.self, from: shown.data).rules == Self.rules)
        }
    }

    @Test func variantsStickAndRulesAreCheckedBeforeTheyAreStored() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store: store).test(.router) { client in
            let variants = LinkRules(variants: [
                LinkVariant(name: "a", weight: 1, destination: DestinationOverride(ofl: "https://pictlink.com/a")),
                LinkVariant(name: "b", weight: 1, destination: DestinationOverride(ofl: "https://pictlink.com/b")),
            ])
            let minted = try await Self.mint(
                CreateShortLinkRequest(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fab", rules: variants), key: key,
                client: client)
            let path = String(
                try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink.dropFirst("https://go.pictlink.com".count))
            var seen: Set<String> = []
            for visitor in 0..<40 {
                let agent = T.Agent.desktop + " visitor/\(visitor)"
                let first = try await client.execute(uri: path, method: .get, headers: T.headers(agent: agent)).headers[.location]
                let again = try await client.execute(uri: path, method: .get, headers: T.headers(agent: agent)).headers[.location]
                #expect(first == again)
                if let first { seen.insert(first) }
            }
            #expect(seen == ["https://pictlink.com/a", "https://pictlink.com/b"])

            let bad = LinkRules(rules: [LinkRule(when: RuleCondition(countries: ["Spain"]), then: DestinationOverride(link: "https://evil.example/"))]
            )
            let refused = try await Self.mint(
                CreateShortLinkRequest(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fx", rules: bad), key: key,
                client: client)
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("rules[0].when.countries: 'Spain' is not an ISO 3166-1 alpha-2 code such as ES"))
            #expect(refused.text.contains("rules[0].then.link 'https://evil.example/' is not allowed by the project's allowlist"))
        }
    }

    /// A client that is not a trusted proxy cannot pick its own country: its `CF-IPCountry` is not read, whether
    /// the server trusts no proxy or only others.
    @Test(arguments: [ForwardedHeaderPolicy.none, .trusting(TrustedProxies([IPNetwork("10.0.0.0/8")!]), header: .xForwardedFor)])
    func theCountryHeaderOfAClientThatIsNotAProxyIsNotRead(_ policy: ForwardedHeaderPolicy) async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store: store, forwardedHeaders: policy).test(.router) { client in
            let request = CreateShortLinkRequest(
                longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fspring&ofl=https%3A%2F%2Fpictlink.com%2Fweb",
                rules: Self.rules)
            let minted = try await Self.mint(request, key: key, client: client)
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
            let path = String(shortLink.dropFirst("https://go.pictlink.com".count))
            var headers = T.headers(agent: T.Agent.desktop)
            headers[HTTPField.Name("CF-IPCountry")!] = "ES"
            #expect(try await client.execute(uri: path, method: .get, headers: headers).headers[.location] == "https://pictlink.com/web")
        }
    }

    @Test func anInstallGetsItsClicksVariantAndCountsForIt() async throws {
        let (store, key) = try await T.storeWithKey()
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: T.configuration, forwardedHeaders: T.trustingTestClient, logLevel: .error, store: store)
        server.countryHeader = "CF-IPCountry"
        try await buildApplication(configuration: server).test(.router) { client in
            let rules = LinkRules(variants: [
                LinkVariant(name: "a", weight: 1, destination: DestinationOverride(link: "https://pictlink.com/a")),
                LinkVariant(name: "b", weight: 1, destination: DestinationOverride(link: "https://pictlink.com/b")),
            ])
            let minted = try await Self.mint(
                CreateShortLinkRequest(
                    longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fab&apn=jp.furyu.pictlink.android", rules: rules),
                key: key, client: client)
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
            let path = String(shortLink.dropFirst("https://go.pictlink.com".count))
            let forwardedFor = HTTPField.Name("X-Forwarded-For")!
            let click = try await client.execute(
                uri: path, method: .get, headers: T.headers(agent: T.Agent.android) + [forwardedFor: "203.0.113.77"])
            let location = try #require(click.headers[.location])
            let referrer = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value)
            // Which variant did this visitor get? The debug page of the same visitor says.
            let debug = try await client.execute(
                uri: path + "?d=1", method: .get, headers: T.headers(agent: T.Agent.android) + [forwardedFor: "203.0.113.77"])
            let variant = debug.text.contains("<li>variant a:") ? "a" : "b"
            #expect(debug.text.contains("<li>variant \(variant): 1 of 2 by weight</li>"))

            let claim = try await client.execute(
                uri: "/v1/installAttribution", method: .post, headers: [forwardedFor: "198.51.100.4"],
                body: ByteBuffer(
                    string:
                        #"{"platform": "ANDROID", "bundleId": "jp.furyu.pictlink.android", "installReferrer": "\#(referrer)", "installId": "i-1"}"#))
            let answer = try JSONDecoder().decode(InstallAttributionResponse.self, from: claim.data)
            #expect(answer.deepLink == "https://pictlink.com/\(variant)")

            let stats = try JSONDecoder().decode(
                LinkStatsResponse.self,
                from: try await client.execute(
                    uri: "/v1/\(PercentEncoding.encodeQueryValue(shortLink))/linkStats?durationDays=1&key=\(key)", method: .get
                ).data)
            let perVariant = Dictionary(
                uniqueKeysWithValues: (stats.variantEventStats ?? []).map { ("\($0.variant) \($0.event.rawValue)", $0.count) })
            #expect(perVariant["\(variant) CLICK"] == "1", "\(perVariant)")
            #expect(perVariant["\(variant) APP_INSTALL"] == "1", "\(perVariant)")
            #expect(perVariant["\(variant) APP_FIRST_OPEN"] == "1", "\(perVariant)")
            #expect(perVariant.keys.allSatisfy { $0.hasPrefix(variant) })
        }
    }

    @Test func expiryAndClickLimitsEndALinkAsConfigured() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store: store).test(.router) { client in
            func mint(_ request: CreateShortLinkRequest) async throws -> String {
                let response = try await Self.mint(request, key: key, client: client)
                #expect(response.status == .ok, "\(response.text)")
                return String(
                    try JSONDecoder().decode(CreateShortLinkResponse.self, from: response.data).shortLink.dropFirst("https://go.pictlink.com".count))
            }
            func click(_ path: String, agent: String = T.Agent.desktop) async throws -> TestResponse {
                try await client.execute(uri: path, method: .get, headers: T.headers(agent: agent))
            }
            let long = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Flimited"
            // Three clicks, then the expired link; crawlers do not use up the limit.
            let limited = try await mint(CreateShortLinkRequest(longDynamicLink: long, maxClicks: 3, expiredLink: "https://pictlink.com/sold-out"))
            #expect(try await click(limited, agent: T.Agent.crawler).status == .ok)
            // (Android, which opens `link` for a link without `apn`; desktops go to the project's desktop fallback.)
            for _ in 0..<3 { #expect(try await click(limited, agent: T.Agent.android).headers[.location] == "https://pictlink.com/limited") }
            #expect(try await click(limited, agent: T.Agent.android).headers[.location] == "https://pictlink.com/sold-out")
            let debug = try await click(limited + "?d=1")
            #expect(debug.text.contains("This link has reached its limit of 3 clicks. Clicks go to https://pictlink.com/sold-out (expiredLink)."))

            // Clicks arriving together: exactly the limit pass.
            let burst = try await mint(CreateShortLinkRequest(longDynamicLink: long + "&utm_source=burst", maxClicks: 10))
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<120 { group.addTask { try await click(burst, agent: T.Agent.android).status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == .found }.count == 10, "\(statuses.filter { $0 == .found }.count) passed")
            #expect(statuses.filter { $0 == .gone }.count == 110)

            // Without an expired link: 410 Gone.
            let twice = try await mint(CreateShortLinkRequest(longDynamicLink: long + "&utm_source=x", maxClicks: 2))
            func reopen() async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: "/v1/reopenAttribution", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"requestedLink": "https://go.pictlink.com\#(twice)", "bundleId": "jp.furyu.pictlink.ios"}"#)
                ).status
            }
            // A re-open (the installed app opened by the link) takes none of its clicks, and stops with them.
            #expect(try await reopen() == .ok)
            for _ in 0..<2 { #expect(try await click(twice).status == .found) }
            #expect(try await click(twice).status == .gone)
            #expect(try await reopen() == .notFound)

            // Already expired when minted.
            let past = try await mint(CreateShortLinkRequest(longDynamicLink: long + "&utm_source=y", expireTime: "2020-01-01T00:00:00Z"))
            #expect(try await click(past).status == .gone)
            #expect(try await click(past + "?d=1").text.contains("This link has expired. Clicks get 410 Gone."))

            // Editing: the limit removed, the link works again.
            let encoded = PercentEncoding.encodeQueryValue("https://go.pictlink.com" + twice)
            let edited = try await client.execute(
                uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"maxClicks": 0}"#))
            #expect(edited.status == .ok, "\(edited.text)")
            #expect(try await click(twice).status == .found)
            #expect(try await reopen() == .ok)

            // Refused: a destination off the allowlist, a limit of 0 when minting.
            for body in [
                CreateShortLinkRequest(longDynamicLink: long, expiredLink: "https://evil.example/"),
                CreateShortLinkRequest(longDynamicLink: long, maxClicks: 0), CreateShortLinkRequest(longDynamicLink: long, expireTime: "soon"),
            ] {
                let refused = try await Self.mint(body, key: key, client: client)
                #expect(refused.status == .badRequest, "\(refused.text)")
            }
        }
    }

    @Test func aProjectsRulesApplyToItsLinksAfterTheirOwn() async throws {
        var configuration = T.configuration
        let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
        configuration.projects[index].rules = LinkRules(rules: [
            LinkRule(name: "Japan", when: RuleCondition(countries: ["JP"]), then: DestinationOverride(ofl: "https://pictlink.jp/"))
        ])
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store: store, configuration: configuration).test(.router) { client in
            let minted = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fplain", key: key, with: client)
            let path = String(minted.shortLink.dropFirst("https://go.pictlink.com".count))
            let japan = try await client.execute(
                uri: path, method: .get, headers: T.headers(agent: T.Agent.desktop) + [HTTPField.Name("CF-IPCountry")!: "JP"])
            #expect(japan.headers[.location] == "https://pictlink.jp/")
        }
    }

    @Test func routesJSONRulesAreChecked() throws {
        let json = """
            {"projects": [{"id": "p", "domains": ["https://go.example.com"], "allowlist": ["^https://example\\\\.com/.*$"],
              "rules": {"rules": [{"when": {"platforms": ["windows"]}, "then": {"link": "https://other.example/"}}], "variants": []}}]}
            """
        #expect(throws: ConfigurationError.self) { try RelinkConfiguration(json: Data(json.utf8)) }
        do {
            _ = try RelinkConfiguration(json: Data(json.utf8))
        } catch {
            let text = "\(error)"
            #expect(text.contains("projects[0].rules: rules[0].when.platforms: 'windows' is not one of"), "\(text)")
            #expect(text.contains("rules[0].then.link 'https://other.example/' is not allowed by the project's allowlist"), "\(text)")
        }
    }
}

extension HTTPFields {
    static func + (a: HTTPFields, b: HTTPFields) -> HTTPFields {
        var result = a
        result.append(contentsOf: b)
        return result
    }
}
