import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkServer
@testable import RelinkStore

private let outageDatabaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// PostgreSQL out of reach (packets dropped, so nothing fails fast): requests wait at most `wait_timeout` and get a
/// 503 with Retry-After, cached links keep redirecting, and everything recovers when the network does.
@Suite("PostgreSQL outage", .enabled(if: outageDatabaseURL != nil), .serialized, .measuresTime)
struct StoreOutageTests {
    @Test func anUnreachableDatabaseIsA503WithinASecondAndCachedLinksKeepRedirecting() async throws {
        let base = try DatabaseURL(try #require(outageDatabaseURL))
        let proxy = try TCPProxy(toPort: base.port)
        defer { proxy.close() }
        let schema = "t_outage_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        var text = try #require(outageDatabaseURL)
        text = text.replacingOccurrences(of: "\(base.host):\(base.port)", with: "127.0.0.1:\(proxy.port)")
        text += (text.contains("?") ? "&" : "?") + "schema=\(schema)&wait_timeout=1"
        var logger = Logger(label: "relink.test")
        logger.logLevel = .critical
        // Set up (schema, key) directly and with the default wait: on a machine busy running the other suites, a
        // first connection may take longer than the 1 s the test is about.
        var direct = try #require(outageDatabaseURL)
        direct += (direct.contains("?") ? "&" : "?") + "schema=\(schema)&wait_timeout=30"
        let setup = try await PostgresStore.connect(try DatabaseURL(direct), logger: logger)
        let (key, _) = try await APIKeys.create(projectId: "pictlink", name: "outage", in: setup)
        setup.close()
        // Connecting is setup too: on a busy machine its first answer may take over the 1 s, so it is tried again.
        var connected: PostgresStore?
        let connecting = ContinuousClock.now + .seconds(60)
        while connected == nil {
            do {
                connected = try await PostgresStore.connect(try DatabaseURL(text), logger: logger)
            } catch  where ContinuousClock.now < connecting {
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let store = try #require(connected)
        defer { store.close() }
        let app = try TestSupport.application(store: store)
        try await app.test(.router) { client in
            // Before the cut, a slow first connection is a 503 worth retrying, not the test's failure.
            var shortLink: String?
            let minting = ContinuousClock.now + .seconds(60)
            while shortLink == nil && ContinuousClock.now < minting {
                let body = try JSONEncoder().encode(["longDynamicLink": "https://go.pictlink.com/?" + TestSupport.sampleQuery])
                let response = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [:], body: ByteBuffer(bytes: body))
                if response.status == .ok {
                    shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: response.data).shortLink
                } else {
                    #expect(response.status == .serviceUnavailable)
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
            let minted = try #require(shortLink)
            let path = try #require(URL(string: minted)?.path)
            let desktop = TestSupport.headers(agent: TestSupport.Agent.desktop)
            // The mint's own change notification empties the link's cache entry when it arrives: let it, then cache
            // (twice, in case a loaded machine delivered it late).
            for _ in 0..<2 {
                try await Task.sleep(for: .seconds(1))
                #expect(try await client.execute(uri: path, method: .get, headers: desktop).status == .found)
            }

            proxy.cut = true
            // The cached link still redirects, at once (the quickest of three: one may stall on a loaded machine).
            let clock = ContinuousClock()
            var cachedTook = Duration.seconds(3_600)
            for _ in 0..<3 {
                let start = clock.now
                #expect(try await client.execute(uri: path, method: .get, headers: desktop).status == .found)
                cachedTook = min(cachedTook, clock.now - start)
            }
            // A link not in the cache: 503 with Retry-After, within the wait (1 s) and slack for a loaded machine,
            // not after TCP's own timeouts (minutes, the packets being dropped).
            var start = clock.now
            let uncached = try await client.execute(uri: "/NeverAskedFor", method: .get, headers: desktop)
            #expect(uncached.status == .serviceUnavailable)
            #expect(uncached.headers[.retryAfter] == "1")
            let uncachedTook = clock.now - start
            #expect(uncachedTook < .seconds(15), "took \(uncachedTook)")
            #expect(cachedTook < uncachedTook, "the cached link took \(cachedTook), as long as the store's wait")
            // The API: the JSON error body, 503, never a 500.
            start = clock.now
            let mint = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [:],
                body: ByteBuffer(string: #"{"longDynamicLink": "https://go.pictlink.com/?link=https://pictlink.com/x"}"#))
            #expect(mint.status == .serviceUnavailable)
            #expect(String(buffer: mint.body).contains("UNAVAILABLE"))
            #expect(mint.headers[.retryAfter] == "1")
            #expect(clock.now - start < .seconds(15), "took \(clock.now - start)")
            let claim = try await client.execute(
                uri: "/v1/installAttribution", method: .post, headers: [:],
                body: ByteBuffer(string: #"{\#(DeferredLinkTests.iPhoneClaim), "installId": "outage-1"}"#))
            #expect(claim.status == .serviceUnavailable)

            // The network comes back: so does everything else, without a restart.
            proxy.cut = false
            var recovered = false
            let deadline = clock.now + .seconds(60)
            while !recovered && clock.now < deadline {
                let again = try await client.execute(uri: "/NeverAskedFor", method: .get, headers: desktop)
                recovered = again.status == .notFound
                if !recovered { try await Task.sleep(for: .milliseconds(250)) }
            }
            #expect(recovered, "still failing 60 s after the database came back")
        }
        try? await store.execute("DROP SCHEMA \(schema) CASCADE")
    }
}
