import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkTestSupport
import ServiceLifecycle
import Testing

@testable import RelinkServer
@testable import RelinkStore

/// Two Relink instances on one PostgreSQL, as behind a load balancer: each with its own connection pool, link
/// cache and event buffers, talking over real sockets. Runs when RELINK_TEST_DATABASE_URL is set (`.ci/run`).
private let testDatabaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

@Suite("Several instances on PostgreSQL", .enabled(if: testDatabaseURL != nil), .serialized, .loadsTheMachine)
struct MultiInstanceTests {
    static let databaseURL = testDatabaseURL
    static let iPhoneClaim = DeferredLinkTests.iPhoneClaim

    /// One running instance: its store, its port, and the handle that stops it gracefully.
    final class Instance: Sendable {
        let store: PostgresStore
        let port: Int
        let group: ServiceGroup
        let task: Task<Void, any Error>

        static func start(schema: String, secrets: AddressHashSecrets? = nil) async throws -> Instance {
            var logger = Logger(label: "relink.test")
            logger.logLevel = .error
            let store = try await PostgresStore.connect(try MultiInstanceTests.url(schema: schema), logger: logger)
            let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
            let app = try buildApplication(
                configuration: ServerConfiguration(
                    host: "127.0.0.1", port: 0, relink: TestSupport.configuration, forwardedHeaders: .defaultTrusting, logLevel: .error,
                    store: store, eventFlushInterval: .milliseconds(100), addressHashSecrets: secrets,
                    onServerRunning: { continuation.yield($0) }))
            let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
            let task = Task { try await group.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else { throw StoreError.unavailable("the server did not start") }
            return Instance(store: store, port: port, group: group, task: task)
        }

        init(store: PostgresStore, port: Int, group: ServiceGroup, task: Task<Void, any Error>) {
            self.store = store
            self.port = port
            self.group = group
            self.task = task
        }

        /// As SIGTERM does: stop accepting, finish requests in flight, write buffered events, then close.
        func stop() async throws {
            await group.triggerGracefulShutdown()
            try await task.value
            store.close()
        }

        func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    }

    static func url(schema: String) throws -> DatabaseURL {
        let base = databaseURL ?? ""
        // A generous wait: these tests check behaviour, on a machine that other suites keep busy.
        return try DatabaseURL(base + (base.contains("?") ? "&" : "?") + "schema=\(schema)&wait_timeout=60")
    }

    /// Starts A and B on a fresh schema, runs `body`, then stops what is still running and drops the schema.
    /// - Parameter secrets: the deployment's shared secret, when the test needs both instances to have the same.
    static func withTwoInstances(
        secrets: AddressHashSecrets? = nil, _ body: (Instance, Instance, String, HTTPClient) async throws -> Void
    ) async throws {
        let schema = "t_multi_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let a = try await Instance.start(schema: String(schema), secrets: secrets)
        let b = try await Instance.start(schema: String(schema), secrets: secrets)
        let (key, _) = try await APIKeys.create(projectId: "pictlink", name: "test", in: a.store)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var failure: (any Error)?
        do { try await body(a, b, key, http) } catch { failure = error }
        try? await http.shutdown()
        try? await a.stop()
        try? await b.stop()
        let cleanup = try await PostgresStore.connect(try url(schema: String(schema)))
        try? await cleanup.execute("DROP SCHEMA \(schema) CASCADE")
        cleanup.close()
        if let failure { throw failure }
    }

    static func request(
        _ http: HTTPClient, _ url: String, method: HTTPMethod = .GET, body: String? = nil, agent: String = TestSupport.Agent.desktop,
        from address: String = "192.0.2.10"
    ) async throws -> (status: Int, headers: HTTPHeaders, body: String) {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Host", value: "go.pictlink.com")
        request.headers.add(name: "User-Agent", value: agent)
        request.headers.add(name: "X-Forwarded-For", value: address)
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: body))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        return (Int(response.status.code), response.headers, String(buffer: bytes))
    }

    static func mint(_ http: HTTPClient, _ instance: Instance, key: String, link: String, suffix: String? = nil) async throws -> String {
        // `ofl`: desktop clicks go to the link itself, not the project's desktop fallback.
        let encoded = PercentEncoding.encodeComponent(link)
        let long = "https://go.pictlink.com/?link=\(encoded)&ibi=jp.furyu.pictlink.ios&isi=000000001&ofl=\(encoded)"
        let body =
            #"{"longDynamicLink": "\#(long)", "suffix": {"option": "\#(suffix == nil ? "SHORT" : "CUSTOM")"\#(suffix.map { #", "customSuffix": "\#($0)""# } ?? "")}}"#
        let response = try await request(http, instance.url("/v1/shortLinks?key=\(key)"), method: .POST, body: body)
        #expect(response.status == 200, "\(response.body)")
        let minted = try JSONDecoder().decode(CreateShortLinkResponse.self, from: Data(response.body.utf8))
        return String(minted.shortLink.dropFirst("https://go.pictlink.com".count))
    }

    /// Notifications travel in milliseconds; this is the pause a test gives them before "the next click".
    static func settle() async throws {
        try await Task.sleep(for: .milliseconds(300))
    }

    /// A console user is signed in on every instance: the sign-in form of A is accepted by B (its token signed with a
    /// key derived from the shared secret), the session B keeps is A's, and signing out on A ends it on B.
    @Test func consoleSessionsHoldAcrossInstances() async throws {
        try await Self.withTwoInstances(secrets: AddressHashSecrets(current: AddressHashSecrets.newSecret())) { a, b, key, http in
            func send(
                _ url: String, method: HTTPMethod = .GET, cookie: String? = nil, form: String? = nil
            ) async throws -> (
                status: Int, headers: HTTPHeaders, body: String
            ) {
                var request = HTTPClientRequest(url: url)
                request.method = method
                if let cookie { request.headers.add(name: "Cookie", value: cookie) }
                if let form {
                    request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                    request.body = .bytes(ByteBuffer(string: form))
                }
                let response = try await http.execute(request, timeout: .seconds(30))
                return (Int(response.status.code), response.headers, String(buffer: try await response.body.collect(upTo: 1 << 20)))
            }
            func cookie(_ name: String, _ headers: HTTPHeaders) -> String? {
                headers["Set-Cookie"].first { $0.hasPrefix(name + "=") }.map { String($0.split(separator: ";")[0]) }
            }
            let form = try await send(a.url("/console/sign-in"))
            let signInCookie = try #require(cookie("relink_console_signin", form.headers))
            let token = try #require(form.body.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            let signedIn = try await send(b.url("/console/sign-in"), method: .POST, cookie: signInCookie, form: "csrf=\(token)&key=\(key)")
            #expect(signedIn.status == 303)
            let session = try #require(cookie("relink_console", signedIn.headers))
            let onA = try await send(a.url("/console/links"), cookie: session)
            #expect(onA.status == 200)
            let csrf = try #require(onA.body.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) })
            #expect(try await send(a.url("/console/sign-out"), method: .POST, cookie: session, form: "csrf=\(csrf)").status == 303)
            let onB = try await send(b.url("/console/links"), cookie: session)
            #expect(onB.status == 303 && onB.headers["Location"].first == "/console/sign-in")
        }
    }

    @Test func mintOnAResolveOnBAndEditsOnAReachB() async throws {
        try await Self.withTwoInstances { a, b, key, http in
            // B has seen the code as unknown (and cached that) before A mints it.
            #expect(try await Self.request(http, b.url("/spring-sale")).status == 404)
            let path = try await Self.mint(http, a, key: key, link: "https://pictlink.com/spring", suffix: "spring-sale")
            try await Self.settle()
            let first = try await Self.request(http, b.url(path))
            #expect(first.status == 302)
            #expect(first.headers["Location"].first == "https://pictlink.com/spring")

            // B has the link cached now; an edit on A reaches B's next click.
            let edit =
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fsummer&ofl=https%3A%2F%2Fpictlink.com%2Fsummer"}"#
            let patched = try await Self.request(
                http, a.url("/v1/links/\(PercentEncoding.encodeComponent("https://go.pictlink.com" + path))?key=\(key)"), method: .PATCH,
                body: edit)
            #expect(patched.status == 200, "\(patched.body)")
            try await Self.settle()
            #expect(try await Self.request(http, b.url(path)).headers["Location"].first == "https://pictlink.com/summer")

            let disabled = try await Self.request(
                http, a.url("/v1/links/\(PercentEncoding.encodeComponent("https://go.pictlink.com" + path))?key=\(key)"), method: .PATCH,
                body: #"{"disabled": true}"#)
            #expect(disabled.status == 200, "\(disabled.body)")
            try await Self.settle()
            #expect(try await Self.request(http, b.url(path)).status == 410)

            // Short codes minted on both at once never collide.
            let paths = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<60 {
                    group.addTask { try await Self.mint(http, index % 2 == 0 ? a : b, key: key, link: "https://pictlink.com/p/\(index)") }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(paths).count == 60)
        }
    }

    @Test func aHundredConcurrentClaimsSplitAcrossInstancesHaveOneWinner() async throws {
        try await Self.withTwoInstances { a, b, _, http in
            let page = try await Self.request(http, a.url("/?" + TestSupport.sampleQuery), agent: TestSupport.Agent.iPhone, from: "203.0.113.5")
            #expect(page.status == 200)
            let token = try #require(DeferredLinkTests.attribute("data-clipboard", in: page.body))
            // A writes its pending clicks every 100 ms here (every second by default; an install takes longer).
            try await Self.settle()
            let answers = try await withThrowingTaskGroup(of: InstallAttributionResponse.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        let response = try await Self.request(
                            http, (index % 2 == 0 ? a : b).url("/v1/installAttribution"), method: .POST,
                            body: #"{\#(Self.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "race-\#(index)"}"#,
                            from: "10.1.\(index / 50).\(index % 50)")
                        #expect(response.status == 200, "\(response.body)")
                        return try JSONDecoder().decode(InstallAttributionResponse.self, from: Data(response.body.utf8))
                    }
                }
                return try await group.reduce(into: [InstallAttributionResponse]()) { $0.append($1) }
            }
            #expect(answers.count == 100)
            #expect(answers.filter { $0.deepLink != nil }.count == 1)
            #expect(answers.filter { $0.attributionConfidence == .unique }.count == 1)
        }
    }

    @Test func stoppingAMidLoadLeavesBServing() async throws {
        try await Self.withTwoInstances { a, b, key, http in
            let path = try await Self.mint(http, a, key: key, link: "https://pictlink.com/load")
            try await Self.settle()
            let stopAt = ContinuousClock.now + .milliseconds(500)
            let endAt = ContinuousClock.now + .milliseconds(1500)
            // Eight clients on B, two on A (until it stops), while A shuts down gracefully.
            let results = try await withThrowingTaskGroup(of: (b: Int, bFailed: Int, a: Int).self) { group in
                for worker in 0..<10 {
                    group.addTask {
                        var served = (b: 0, bFailed: 0, a: 0)
                        let onA = worker < 2
                        while ContinuousClock.now < (onA ? stopAt : endAt) {
                            let status = try? await Self.request(http, (onA ? a : b).url(path)).status
                            if onA {
                                if status == 302 { served.a += 1 }
                            } else if status == 302 {
                                served.b += 1
                            } else {
                                served.bFailed += 1
                            }
                        }
                        return served
                    }
                }
                group.addTask {
                    try await Task.sleep(until: stopAt)
                    try await a.stop()
                    return (0, 0, 0)
                }
                return try await group.reduce(into: (b: 0, bFailed: 0, a: 0)) { total, next in
                    total = (total.b + next.b, total.bFailed + next.bFailed, total.a + next.a)
                }
            }
            #expect(results.bFailed == 0)
            #expect(results.b > 100)
            #expect(results.a > 0)
            // A wrote what it counted before it stopped; B writes within its flush interval.
            try await Self.settle()
            let link = try #require(try await b.store.link(domain: "https://go.pictlink.com", code: String(path.dropFirst())))
            let clicks = try await b.store.eventCounts(linkId: link.id, fromDay: EventCounterKey.day(of: Date()))
                .filter { $0.event == .click }.reduce(0) { $0 + $1.count }
            // Nothing counted is lost. A request A counted while stopping may not have got its answer to a client on a
            // loaded machine (seen once: 555 stored, 554 answered): at most one per client on A.
            #expect(clicks >= Int64(results.a + results.b) && clicks <= Int64(results.a + results.b + 2), "\(clicks) stored, \(results)")
        }
    }
}
