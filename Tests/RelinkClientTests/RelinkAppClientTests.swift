import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkClient

/// `Relink` where the conformance scenarios do not reach: the server URLs it refuses, `Retry-After`, one claim in
/// flight, and what it sends.
@Suite("Relink (the app client)", .measuresTime)
struct RelinkAppClientTests {
    /// Runs `body` with the base URL of a live server that answers with `router`.
    static func withStub(_ router: Router<BasicRequestContext>, _ body: @Sendable (URL) async throws -> Void) async throws {
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "stub"))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
        }
    }

    @Test(arguments: [
        ("https://go.example.com", true), ("http://127.0.0.1:8080", true), ("http://localhost", true), ("http://[::1]:9", true),
        ("http://10.0.2.2:8080", true), ("http://go.example.com", false), ("http://10.0.2.3", false), ("ftp://go.example.com", false),
        ("https:///nohost", false), ("http://localhost/?x=1", false), ("https://go.example.com/#top", false),
        ("https://user@go.example.com", false),
    ])
    func sendsSignalsOnlyOverHTTPSOrLoopback(_ server: String, _ allowed: Bool) async throws {
        let url = try #require(URL(string: server))
        #expect((Relink.problem(with: url) == nil) == allowed, "\(server)")
        if !allowed {
            let relink = Relink(server: url, platform: .android, appId: "test.relink.shop", storage: MemoryStorage())
            guard case .failed(let error) = await relink.claimDeferredLink() else {
                Issue.record("claimed through \(server)")
                return
            }
            #expect(error.kind == .invalidInput)
        }
    }

    @Test(arguments: [(0.0, 10.0), (-1, 10), (.infinity, 10), (.nan, 10), (10, -1), (10, .infinity)] as [(Double, Double)])
    func refusesOptionsThatCannotWork(_ timeout: Double, _ budget: Double) async {
        let relink = Relink(
            server: URL(string: "https://go.example.com")!, platform: .iOS, appId: "test.relink.shop", storage: MemoryStorage(),
            options: Relink.Options(timeout: timeout, retryBudget: budget))
        guard case .failed(let error) = await relink.resolve("https://go.example.com/x") else {
            Issue.record("a call ran with timeout \(timeout) and budget \(budget)")
            return
        }
        #expect(error.kind == .invalidInput)
    }

    @Test(
        arguments: [
            ("1", 1), (" 2 ", 2), ("120", 120), ("", nil), ("-1", nil), ("1.5", nil), ("Wed, 21 Oct 2015 07:28:00 GMT", 0),
            ("9999999999", Int(Int32.max)),
        ] as [(String, Int?)])
    func readsRetryAfterAsDelaySecondsOrADate(_ header: String, _ seconds: Int?) {
        #expect(RelinkTransport.seconds(header) == seconds)
    }

    /// Two callers at once make one request and get one answer; a non-claim clipboard text is never sent; the
    /// answer is kept, so a third call asks nothing.
    @Test func concurrentClaimsMakeOneRequestAndSendOnlyAClaimLink() async throws {
        let bodies = NIOLockedValueBox<[Data]>([])
        let router = Router()
        router.post("/v1/installAttribution") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            bodies.withLockedValue { $0.append(Data(body.readableBytesView)) }
            try await Task.sleep(for: .milliseconds(300))
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"matchMessage": "No pre-install link matched for this device."}"#)))
        }
        try await Self.withStub(router) { server in
            let storage = MemoryStorage()
            let relink = Relink(server: server, platform: .iOS, appId: "test.relink.shop", storage: storage)
            let request = ClaimRequest(device: DeviceSignals(osVersion: "17.2"), clipboardLink: "https://example.com/not-a-claim")
            async let first = relink.claimDeferredLink(request)
            async let second = relink.claimDeferredLink(request)
            let answers = await [first, second]
            #expect(
                answers == [
                    .organic(message: "No pre-install link matched for this device."),
                    .organic(message: "No pre-install link matched for this device."),
                ])
            #expect(await relink.claimDeferredLink(request) == .alreadyClaimed)
            let sent = try bodies.withLockedValue { $0 }.map { try JSONSerialization.jsonObject(with: $0) as? [String: Any] ?? [:] }
            #expect(sent.count == 1)
            #expect(sent.first?["uniqueMatchLinkToCheck"] == nil)
            #expect(sent.first?["installId"] as? String == storage.string(forKey: "relink.installId"))
            #expect(sent.first?["iosVersion"] as? String == "17.2")
            #expect(sent.first?["sdkVersion"] as? String == "relink-swift-1")
        }
    }

    /// A kept install id the server refuses (another SDK's, a damaged one) is replaced at the claim and never sent
    /// with a re-open: sent, it would have every claim and re-open of the install refused (400) for good.
    @Test(arguments: ["not valid!", String(repeating: "a", count: 129), "ü"])
    func replacesAKeptInstallIdTheServerRefuses(_ kept: String) async throws {
        let installIds = NIOLockedValueBox<[String?]>([])
        let router = Router()
        for path in ["/v1/installAttribution", "/v1/reopenAttribution"] {
            router.post(RouterPath(path)) { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 16)
                let sent = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any]
                let installId = sent?["installId"] as? String
                installIds.withLockedValue { $0.append(installId) }
                // The server's rule: 1 to 128 of A-Z, a-z, 0-9, '.', '_', '-'.
                if let installId, installId.range(of: "^[A-Za-z0-9._-]{1,128}$", options: .regularExpression) == nil {
                    return Response(status: .badRequest)
                }
                let answer =
                    path.hasSuffix("installAttribution")
                    ? #"{"matchMessage": "No pre-install link matched for this device."}"#
                    : #"{"deepLink": "https://shop.example/p/1", "resolvedLink": "https://go.relink.test/p/1"}"#
                return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: answer)))
            }
        }
        try await Self.withStub(router) { server in
            let storage = MemoryStorage()
            storage.set(kept, forKey: "relink.installId")
            let relink = Relink(server: server, platform: .iOS, appId: "test.relink.shop", storage: storage)
            guard case .resolved = await relink.resolve("https://go.relink.test/p/1") else {
                Issue.record("a re-open failed on the kept install id")
                return
            }
            #expect(await relink.claimDeferredLink() == .organic(message: "No pre-install link matched for this device."))
            let made = try #require(storage.string(forKey: "relink.installId"))
            #expect(made != kept && made.range(of: "^[A-Za-z0-9._-]{1,128}$", options: .regularExpression) != nil)
            #expect(installIds.withLockedValue { $0 } == [nil, made])
        }
    }

    /// The timeout bounds the whole request: an answer trickled a byte at a time is not waited for past it (Linux's
    /// Foundation enforces only the idle timeout, which each byte resets).
    @Test func timesOutAnAnswerTrickledSlowerThanTheTimeout() async throws {
        let router = Router()
        router.post("/v1/reopenAttribution") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "{"))
                    for _ in 0..<150 {
                        try await Task.sleep(for: .milliseconds(200))
                        try await writer.write(ByteBuffer(string: " "))
                    }
                    try await writer.write(ByteBuffer(string: #""deepLink": "x", "resolvedLink": "y"}"#))
                    try await writer.finish(nil)
                })
        }
        try await Self.withStub(router) { server in
            let relink = Relink(
                server: server, platform: .iOS, appId: "test.relink.shop", storage: MemoryStorage(), options: .init(timeout: 1, retryBudget: 0))
            let start = ContinuousClock.now
            let result = await relink.resolve("https://go.relink.test/p/1")
            guard case .failed(let error) = result else {
                Issue.record("answered \(result) from an answer trickled over 30 s with a 1 s timeout")
                return
            }
            #expect(error.kind == .timeout)
            // The answer takes 30 s; the bound is the timeout's, with room for a loaded machine (5 s seen on CI).
            #expect(ContinuousClock.now - start < .seconds(15))
        }
    }

    /// An answer past `maxAnswerBytes` is refused as it arrives, not buffered until its end: here the end comes
    /// long after the timeout, so only a client that stops at the cap answers `malformed` (the timeout leaves a loaded
    /// machine time to carry the first MiB).
    @Test func refusesAnAnswerLargerThanTheCapAsItArrives() async throws {
        let router = Router()
        router.post("/v1/reopenAttribution") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(repeating: UInt8(ascii: " "), count: RelinkTransport.maxAnswerBytes + 1))
                    try await Task.sleep(for: .seconds(12))
                    try await writer.write(ByteBuffer(string: #"{"deepLink": "x", "resolvedLink": "y"}"#))
                    try await writer.finish(nil)
                })
        }
        try await Self.withStub(router) { server in
            let relink = Relink(
                server: server, platform: .iOS, appId: "test.relink.shop", storage: MemoryStorage(), options: .init(timeout: 10, retryBudget: 0))
            guard case .failed(let error) = await relink.resolve("https://go.relink.test/p/1") else {
                Issue.record("resolved an answer larger than the cap")
                return
            }
            #expect(error.kind == .malformed)
        }
    }

    /// Cancelling the calling task while it waits out a `Retry-After` sends nothing more.
    @Test func cancellingACallSendsNoFurtherRequest() async throws {
        let requests = NIOLockedValueBox(0)
        let router = Router()
        router.post("/v1/reopenAttribution") { _, _ -> Response in
            requests.withLockedValue { $0 += 1 }
            return Response(status: .tooManyRequests, headers: [.retryAfter: "2"])
        }
        try await Self.withStub(router) { server in
            let relink = Relink(
                server: server, platform: .iOS, appId: "test.relink.shop", storage: MemoryStorage(), options: .init(timeout: 5, retryBudget: 10))
            let call = Task { await relink.resolve("https://go.relink.test/p/1") }
            while requests.withLockedValue({ $0 }) == 0 { try await Task.sleep(for: .milliseconds(10)) }
            // Well inside the 2 s wait: the 429 has arrived and the client sleeps.
            try await Task.sleep(for: .milliseconds(300))
            call.cancel()
            guard case .failed(let error) = await call.value else {
                Issue.record("a cancelled call resolved")
                return
            }
            #expect(error.kind == .offline)
            #expect(requests.withLockedValue { $0 } == 1)
        }
    }

    /// `resolve` asks the server not to count a re-open (`countAsReopen: false`); `reopen` leaves it to count. The
    /// conformance scenarios see only the answers, which are the same either way.
    @Test func resolveAsksNotToCountAReopenAndReopenDoesNot() async throws {
        let countAsReopen = NIOLockedValueBox<[String]>([])
        let router = Router()
        router.post("/v1/reopenAttribution") { request, _ -> Response in
            let body = try await request.body.collect(upTo: 1 << 16)
            let sent = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: Any] ?? [:]
            countAsReopen.withLockedValue { $0.append(sent["countAsReopen"].map { "\($0)" } ?? "absent") }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(
                    byteBuffer: ByteBuffer(string: #"{"deepLink": "https://shop.example/p/1", "resolvedLink": "https://go.relink.test/p/1"}"#)))
        }
        try await Self.withStub(router) { server in
            let relink = Relink(server: server, platform: .iOS, appId: "test.relink.shop", storage: MemoryStorage())
            _ = await relink.resolve("https://go.relink.test/p/1")
            _ = await relink.reopen("https://go.relink.test/p/1")
            #expect(countAsReopen.withLockedValue { $0 } == ["0", "absent"])
        }
    }
}
