import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkCore
import RelinkStore
import RelinkTestSupport
import ServiceLifecycle
import Testing

@testable import RelinkServer

/// `/metrics`, request ids and what reaches the log.
@Suite("Observability") struct ObservabilityTests {
    typealias T = TestSupport
    static let token = "metrics-token-0123456789"

    static func application(
        store: any RelinkStore, metrics: MetricsEndpoint = .token(token), logger: Logger? = nil
    ) throws
        -> some ApplicationProtocol
    {
        var configuration = ServerConfiguration(
            port: 0, relink: T.configuration, forwardedHeaders: T.trustingTestClient, logLevel: .error, metrics: metrics, store: store,
            eventFlushInterval: .seconds(60))
        configuration.logger = logger
        return try buildApplication(configuration: configuration)
    }

    static func scrape(_ client: some TestClientProtocol) async throws -> String {
        let response = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer \(token)"])
        #expect(response.status == .ok)
        #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
        return String(buffer: response.body)
    }

    /// The value of the series `name{labels}` in a scrape, 0 when absent.
    static func value(_ scrape: String, _ series: String) -> Double {
        for line in scrape.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1)) ?? .nan
        }
        return 0
    }

    @Test func metricsCountRedirectsClaimsAndLimitsWithFixedLabels() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try Self.application(store: store)
        try await app.test(.router) { client in
            let before = try await Self.scrape(client)
            // A long link from a desktop, an iPhone's preview page, a short link, an unknown code, an API call.
            _ = try await client.execute(uri: "/?" + T.sampleQuery, method: .get, headers: T.headers(agent: T.Agent.desktop))
            var iPhone = T.headers(agent: T.Agent.iPhone)
            iPhone[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.9"
            let page = try await client.execute(uri: "/?" + T.sampleQuery, method: .get, headers: iPhone)
            let minted = try await T.mint("https://go.pictlink.com/?" + T.sampleQuery, key: key, with: client)
            let path = try #require(URL(string: minted.shortLink)?.path)
            _ = try await client.execute(uri: path, method: .get, headers: T.headers(agent: T.Agent.android))
            _ = try await client.execute(uri: "/NoSuchCode", method: .get, headers: T.headers(agent: T.Agent.desktop))
            // A claim with the page's clipboard token: UNIQUE.
            let token = try #require(DeferredLinkTests.attribute("data-clipboard", in: page.text))
            let claimed = try await DeferredLinkTests.claim(
                client, #"{\#(DeferredLinkTests.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "metrics-1"}"#,
                from: "203.0.113.9")
            #expect(claimed.status == .ok)
            // Failed keys until the limiter refuses them: the burst and one more, and a few besides for the tokens a slow
            // machine refills meanwhile (one every ten seconds).
            var refused = false
            for _ in 0..<(ClientLimiter.Endpoint.failedKey.defaultLimit.burst + 10) where !refused {
                let answer = try await client.execute(uri: "/v1/shortLinks?key=rl_wrong", method: .post, headers: [:], body: ByteBuffer(string: "{}"))
                refused = answer.status == .tooManyRequests
            }
            #expect(refused)
            let after = try await Self.scrape(client)

            for series in [
                #"relink_requests_total{kind="long_link",platform="desktop",outcome="redirect"}"#,
                #"relink_requests_total{kind="long_link",platform="iphone",outcome="app_preview"}"#,
                #"relink_requests_total{kind="short_link",platform="android",outcome="redirect"}"#,
                #"relink_requests_total{kind="short_link",platform="none",outcome="not_found"}"#,
                #"relink_requests_total{kind="api",platform="none",outcome="ok"}"#,
                #"relink_requests_total{kind="api",platform="none",outcome="rate_limited"}"#,
                #"relink_claims_total{confidence="UNIQUE"}"#,
                #"relink_rate_limited_total{endpoint="failed_key"}"#,
                #"relink_request_duration_seconds_count{kind="long_link"}"#,
            ] {
                #expect(Self.value(after, series) > Self.value(before, series), "\(series) did not grow:\n\(after)")
            }
            #expect(Self.value(after, #"relink_queue_depth{queue="click_events"}"#) > 0)
            #expect(Self.value(after, #"relink_queue_depth{queue="pending_clicks"}"#) >= 0)
            #expect(after.contains("# TYPE relink_request_duration_seconds histogram"))
            #expect(after.contains("relink_link_cache_entries"))
            // Labels take fixed values only: never a code, a link, a key or an address.
            #expect(!after.contains(path.dropFirst()))
            #expect(!after.contains("203.0.113"))
            #expect(!after.contains("rl_wrong"))
        }
    }

    @Test func metricsNeedTheToken() async throws {
        let app = try Self.application(store: try SQLiteStore())
        try await app.test(.router) { client in
            let anonymous = try await client.execute(uri: "/metrics", method: .get)
            #expect(anonymous.status == .unauthorized)
            #expect(!String(buffer: anonymous.body).contains("relink_"))
            let wrong = try await client.execute(uri: "/metrics", method: .get, headers: [.authorization: "Bearer metrics-token-0123456780"])
            #expect(wrong.status == .unauthorized)
        }
        // Without a token or port, /metrics is an ordinary (unknown) link path.
        let closed = try Self.application(store: try SQLiteStore(), metrics: .disabled)
        try await closed.test(.router) { client in
            for path in ["/metrics", "/metrics/", "/metrics/x"] {
                let response = try await client.execute(
                    uri: path, method: .get, headers: [.authorization: "Bearer \(Self.token)", HTTPField.Name("Host")!: "go.pictlink.com"])
                #expect(response.status == .notFound)
                #expect(!String(buffer: response.body).contains("relink_requests_total"))
                #expect(String(buffer: response.body).hasPrefix("<!doctype html>"), "\(path)")
            }
        }
    }

    /// A request is counted once, whichever route answers it: below `/.well-known/` a path other than the files is
    /// a path without a link (it was counted as both).
    @Test func aRequestIsCountedOnce() async throws {
        let app = try Self.application(store: try SQLiteStore())
        try await app.test(.router) { client in
            func answered(_ scrape: String) -> Double {
                scrape.split(separator: "\n").filter { $0.hasPrefix("relink_requests_total{") && !$0.contains(#"kind="metrics""#) }
                    .reduce(0) { $0 + (Double($1.split(separator: " ").last ?? "") ?? .nan) }
            }
            let paths = [
                "/.well-known/x", "/.well-known/", "/.well-known", "/.well-known/assetlinks.json", "//.well-known/assetlinks.json/",
                "/apple-app-site-association", "/healthz", "/healthz/", "/healthz/x", "/NoSuchCode", "/?" + T.sampleQuery,
            ]
            for path in paths {
                let before = answered(try await Self.scrape(client))
                _ = try await client.execute(uri: path, method: .get, headers: T.headers(agent: T.Agent.desktop))
                let after = answered(try await Self.scrape(client))
                #expect(after - before == 1, "\(path)")
            }
        }
    }

    /// `--metrics-port`: a listener of its own; the main port does not serve metrics.
    @Test(.measuresTime) func metricsOnTheirOwnPort() async throws {
        try await ConnectionTimeoutTests.withServer { main, metricsPort in
            _ = try await BrokenRequestTests.exchangeOffThePool(
                "GET /?\(T.sampleQuery) HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: close\r\n\r\n", port: main)
            let scrape = try await BrokenRequestTests.exchangeOffThePool(
                "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: metricsPort)
            #expect(scrape.hasPrefix("HTTP/1.1 200"))
            #expect(scrape.contains(#"relink_requests_total{kind="long_link",platform="other",outcome="redirect"} 1"#), "\(scrape)")
            // HEAD answers as GET (it was an empty 404).
            let head = try await BrokenRequestTests.exchangeOffThePool(
                "HEAD /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: metricsPort)
            #expect(head.hasPrefix("HTTP/1.1 200"), "\(head)")
            // On the main port /metrics is a path without a link, with its page.
            for path in ["/metrics", "/metrics/"] {
                let onMain = try await BrokenRequestTests.exchangeOffThePool(
                    "GET \(path) HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: close\r\n\r\n", port: main)
                #expect(!onMain.contains("relink_requests_total"))
                #expect(onMain.hasPrefix("HTTP/1.1 404") && onMain.contains("<!doctype html>"), "\(path): \(onMain.prefix(300))")
            }
        }
    }

    @Test func everyResponseCarriesARequestId() async throws {
        let app = try Self.application(store: try SQLiteStore())
        try await app.test(.router) { client in
            let first = try await client.execute(uri: "/?" + T.sampleQuery, method: .get)
            let second = try await client.execute(uri: "/v1/nothing", method: .get)
            let firstId = try #require(first.headers[RequestObservingMiddleware.requestIdHeader])
            let secondId = try #require(second.headers[RequestObservingMiddleware.requestIdHeader])
            #expect(firstId != secondId)
            #expect(firstId.count >= 16)
            // A proxy's id is kept when it is a plain token, replaced when it is not.
            let given = try await client.execute(
                uri: "/healthz", method: .get, headers: [RequestObservingMiddleware.requestIdHeader: "lb-1234.abc"])
            #expect(given.headers[RequestObservingMiddleware.requestIdHeader] == "lb-1234.abc")
            let hostile = try await client.execute(
                uri: "/healthz", method: .get, headers: [RequestObservingMiddleware.requestIdHeader: "a\"b<script>"])
            #expect(hostile.headers[RequestObservingMiddleware.requestIdHeader] != "a\"b<script>")
        }
    }

    /// Lines a test's JSON log handler wrote.
    final class LogLines: Sendable {
        let lines = NIOLockedValueBox([String]())
        var all: [String] { lines.withLockedValue { $0 } }
        func logger(level: Logger.Level) -> Logger {
            var logger = Logger(label: "relink") { label in JSONLogHandler(label: label) { line in self.lines.withLockedValue { $0.append(line) } } }
            logger.logLevel = level
            return logger
        }
    }

    @Test func jsonLogLinesAreOneObjectEachWithTheRequestId() throws {
        let lines = LogLines()
        var logger = lines.logger(level: .info)
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("two\nlines and a \"quote\" </script>", metadata: ["path": "/x"])
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("\n") && line.dropLast().firstIndex(of: "\n") == nil)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["request_id"] as? String == "abc123")
        #expect(object["message"] as? String == "two\nlines and a \"quote\" </script>")
        #expect(object["level"] as? String == "info")
        #expect(object["path"] as? String == "/x")
        #expect((object["time"] as? String)?.hasPrefix("20") == true)
    }

    /// The default text format: `StreamLogHandler`'s line, metadata sorted, and nothing a request carried can
    /// start a line of its own or reach the terminal as a control sequence.
    @Test func textLogLinesEscapeControlCharacters() throws {
        let lines = NIOLockedValueBox([String]())
        var logger = Logger(label: "relink") { label in TextLogHandler(label: label) { line in lines.withLockedValue { $0.append(line) } } }
        logger[metadataKey: "hb.request.id"] = "abc123"
        logger.info("forged\n2026-01-01T00:00:00+0000 error relink: pwned \u{1B}[31mred\u{2028}", metadata: ["path": "/x\ry"])
        let line = try #require(lines.withLockedValue { $0.first })
        #expect(line.hasSuffix("\n") && line.dropLast().unicodeScalars.allSatisfy { $0.value >= 0x20 && $0.value != 0x7F })
        #expect(line.range(of: " info relink: hb.request.id=abc123 path=/x\\ry [") != nil)
        #expect(line.range(of: "] forged\\n2026-01-01T00:00:00+0000 error relink: pwned \\u{1B}[31mred\\u{2028}\n") != nil)
        #expect(TextLogHandler.escaped("plain ünïcode ✓") == "plain ünïcode ✓")
    }

    /// Everything logged at trace level while a client clicks, claims, mints and tries wrong keys: never its
    /// address, an API key or the address-hash secret.
    @Test func logsHoldNoKeysSecretsOrAddresses() async throws {
        let lines = LogLines()
        let (store, key) = try await T.storeWithKey()
        let secrets = AddressHashSecrets(current: "super-secret-address-hash-key-000")
        var configuration = ServerConfiguration(
            port: 0, relink: T.configuration, forwardedHeaders: T.trustingTestClient, logLevel: .trace, store: store,
            addressHashSecrets: secrets)
        configuration.logger = lines.logger(level: .trace)
        let app = try buildApplication(configuration: configuration)
        let address = "198.51.100.77"
        let forwarded = HTTPField.Name("X-Forwarded-For")!
        try await app.test(.router) { client in
            var headers = T.headers(agent: T.Agent.iPhone)
            headers[forwarded] = address
            _ = try await client.execute(uri: "/?" + T.sampleQuery, method: .get, headers: headers)
            _ = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [forwarded: address],
                body: ByteBuffer(string: #"{"longDynamicLink": "https://go.pictlink.com/?\#(T.sampleQuery)"}"#))
            _ = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [forwarded: address, .authorization: "Bearer rl_not_a_real_key_123"],
                body: ByteBuffer(string: "{}"))
            _ = try await client.execute(
                uri: "/v1/shortLinks?key=rl_another_wrong_key_456", method: .post, headers: [forwarded: address], body: ByteBuffer(string: "{}"))
            _ = try await DeferredLinkTests.claim(client, #"{\#(DeferredLinkTests.iPhoneClaim)}"#, from: address)
        }
        let all = lines.all
        #expect(!all.isEmpty)
        for line in all {
            #expect(!line.contains(address), "a log line holds the client's address: \(line)")
            #expect(!line.contains(key), "a log line holds an API key: \(line)")
            #expect(!line.contains("rl_not_a_real_key_123") && !line.contains("rl_another_wrong_key_456"), "a log line holds a key: \(line)")
            #expect(!line.contains("super-secret-address-hash"), "a log line holds the secret: \(line)")
        }
    }

    /// A client sending wrong keys cannot fill the disk with log lines: a refused key is logged within the network's
    /// budget of failed keys only, with at most 200 scalars of the path.
    @Test func refusedKeysAreLoggedWithinTheirBudgetAndShort() async throws {
        let lines = LogLines()
        var configuration = ServerConfiguration(
            port: 0, relink: T.configuration, forwardedHeaders: T.trustingTestClient, logLevel: .info, store: try SQLiteStore())
        configuration.logger = lines.logger(level: .info)
        // The budget does not refill while the test runs, however slowly a loaded machine runs it.
        configuration.rateLimitElapsed = T.stillTime
        let app = try buildApplication(configuration: configuration)
        let long = String(repeating: "A", count: 60_000)
        try await app.test(.router) { client in
            for _ in 0..<100 {
                let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9", .authorization: "Bearer rl_bad"]
                _ = try await client.execute(uri: "/v1/links/\(long)", method: .get, headers: headers)
            }
        }
        let refused = lines.all.filter { $0.contains("API key not valid") }
        #expect(refused.count == 20, "the burst of failed keys, then nothing: \(refused.count) lines")
        #expect(refused.allSatisfy { $0.utf8.count < 1_000 }, "\(refused.map(\.utf8.count).max() ?? 0) bytes")

        // From a network of its own for each request (IPv6 /64s are cheap), past the lines' own budget of 100 at
        // once, one a second: then a line says how many were left out.
        let many = LogLines()
        configuration.logger = many.logger(level: .info)
        try await buildApplication(configuration: configuration).test(.router) { client in
            for index in 0..<300 {
                let headers: HTTPFields = [HTTPField.Name("X-Forwarded-For")!: "2001:db8:\(index):1::1", .authorization: "Bearer rl_bad"]
                _ = try await client.execute(uri: "/v1/links", method: .get, headers: headers)
            }
            try await Task.sleep(for: .milliseconds(1_100))
            _ = try await client.execute(
                uri: "/v1/links", method: .get, headers: [HTTPField.Name("X-Forwarded-For")!: "2001:db8:ffff:1::1", .authorization: "Bearer rl_bad"])
        }
        let spread = many.all.filter { $0.contains("API key not valid") }
        #expect(spread.count >= 100 && spread.count < 150, "\(spread.count) lines for 301 refusals")
        #expect(spread.last?.contains("more refused keys not logged since the last line") == true, "\(spread.last ?? "")")
    }
}
