import Foundation
import Hummingbird
import NIOConcurrencyHelpers
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkClient

/// Answers a hostile or broken server can send, and the result each must become: the same as in the Android and
/// JavaScript clients (clients/conformance/README.md, "Hostile answers").
@Suite("Relink (the app client): hostile answers", .measuresTime)
struct HostileAnswerTests {
    static func nested(_ depth: Int) -> String { String(repeating: "[", count: depth) + String(repeating: "]", count: depth) }

    static func client(_ server: URL, budget: TimeInterval = 5) -> Relink {
        Relink(
            server: server, platform: .android, appId: "test.relink.shop", storage: MemoryStorage(), options: .init(timeout: 2, retryBudget: budget))
    }

    /// A stub answering `status`, `body` and `headers` to both calls, counting requests.
    static func withAnswer(
        _ status: HTTPResponse.Status, _ body: String, headers: HTTPFields = [:],
        _ check: @Sendable (URL, NIOLockedValueBox<Int>) async throws -> Void
    ) async throws {
        let requests = NIOLockedValueBox(0)
        let router = Router()
        let answer: @Sendable (Request, BasicRequestContext) async throws -> Response = { _, _ in
            requests.withLockedValue { $0 += 1 }
            var fields = headers
            fields[.contentType] = "application/json"
            return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        router.post("/v1/installAttribution", use: answer)
        router.post("/v1/reopenAttribution", use: answer)
        try await RelinkAppClientTests.withStub(router) { server in try await check(server, requests) }
    }

    @Test func theShapeCheckBoundsDepthAndRefusesAKeyTwice() {
        #expect(JSONShape.problem(Data(Self.nested(JSONShape.maxDepth).utf8)) == nil)
        #expect(JSONShape.problem(Data(Self.nested(JSONShape.maxDepth + 1).utf8)) != nil)
        #expect(JSONShape.problem(Data(#"{"a": "\#(Self.nested(500))", "b": "\"[["}"#.utf8)) == nil, "brackets in strings do not count")
        #expect(JSONShape.problem(Data(#"{"deepLink": "a", "deepLink": "b"}"#.utf8)) != nil)
        #expect(JSONShape.problem(Data(#"{"deepLink": "a", "\u0064eepLink": "b"}"#.utf8)) != nil, "an escape writes the same key")
        #expect(JSONShape.problem(Data(#"{"😀": 1, "\ud83d\ude00": 2}"#.utf8)) != nil, "a surrogate pair is its scalar")
        #expect(JSONShape.problem(Data(#"{"a": "a", "b": {"a": "x"}}"#.utf8)) == nil, "one key in two objects, or as a value")
    }

    @Test(
        arguments: [
            ("Mon, 21 Sep 2026 14:14:00 GMT", 40), ("Sun, 06 Nov 1994 08:49:37 GMT", 0), ("Fri, 31 Dec 9999 23:59:59 GMT", Int(Int32.max)),
            ("9999999999", Int(Int32.max)), ("Mon, 30 Feb 2026 14:14:00 GMT", nil), ("Mon, 21 Sep 2026 14:14:00 UTC", nil),
            ("Mon, 21 Sep 2026 24:00:00 GMT", nil), ("Monday, 21-Sep-26 14:14:00 GMT", nil), ("Mon Sep 21 14:14:00 2026", nil),
            ("mon, 21 sep 2026 14:14:00 GMT", nil), ("1, 2", nil),
        ] as [(String, Int?)])
    func readsRetryAfterDatesAsTheOtherClientsDo(_ header: String, _ seconds: Int?) {
        // 2026-09-21T14:13:20Z
        #expect(RetryAfter.seconds(header, now: Date(timeIntervalSince1970: 1_790_000_000)) == seconds)
        #expect(RetryAfter.daysSince1970(year: 2000, month: 3, day: 1) == 11017)
    }

    @Test(arguments: [
        Self.nested(3000), #"{"deepLink": \#(Self.nested(65)), "resolvedLink": "r", "matchMessage": "m"}"#,
        #"{"matchMessage": "m", "deepLink": "https://first.example/", "attributionConfidence": "UNIQUE", "deepLink": "https://second.example/"}"#,
        #"{"deepLink": "a", "resolvedLink": "r", "routeParameters": {"id": "1", "id": "2"}}"#,
        #"{"matchMessage": "m", "deepLink": "x", "attributionConfidence": "WEAK", "resolvedLink": 5}"#,
    ])
    func answersTooDeepOrWithAKeyTwiceAreMalformed(_ body: String) async throws {
        try await Self.withAnswer(.ok, body) { server, _ in
            let relink = Self.client(server)
            guard case .failed(let claimError) = await relink.claimDeferredLink() else {
                Issue.record("a claim read \(body.prefix(80))")
                return
            }
            #expect(claimError.kind == .malformed)
            if body.contains("resolvedLink\": \"r") || body.hasPrefix("[") {
                guard case .failed(let linkError) = await relink.resolve("https://go.relink.test/x") else {
                    Issue.record("a resolve read \(body.prefix(80))")
                    return
                }
                #expect(linkError.kind == .malformed)
            }
        }
    }

    @Test func anErrorBodyTooDeepGivesOnlyTheStatus() async throws {
        try await Self.withAnswer(.notFound, #"{"error": {"status": "NOT_FOUND", "x": \#(Self.nested(3000))}}"#) { server, _ in
            guard case .failed(let error) = await Self.client(server).resolve("https://go.relink.test/x") else {
                Issue.record("resolved a 404")
                return
            }
            #expect(error.kind == .http && error.status == 404 && error.apiStatus == nil)
        }
    }

    /// Ten digits, or a date past the budget, fail at once with the server's value (the README's rule), not after 1 s.
    @Test(arguments: ["9999999999", "Fri, 31 Dec 9999 23:59:59 GMT"])
    func aRetryAfterPastTheBudgetFailsAtOnce(_ retryAfter: String) async throws {
        try await Self.withAnswer(.tooManyRequests, "{}", headers: [.retryAfter: retryAfter]) { server, requests in
            guard case .failed(let error) = await Self.client(server).resolve("https://go.relink.test/x") else {
                Issue.record("resolved a 429")
                return
            }
            #expect(error.kind == .rateLimited && error.retryAfterSeconds == Int(Int32.max))
            #expect(requests.withLockedValue { $0 } == 1)
        }
    }

    @Test(
        arguments: [
            ("SSH-2.0-OpenSSH_9.6\r\n", "offline", nil), ("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n{\"matchMessage\"", "offline", nil),
            ("HTTP/1.1 600 Odd\r\nContent-Length: 2\r\n\r\n{}", "http", 600),
            ("HTTP/1.1 200 OK\r\nX-Big: \(String(repeating: "a", count: 200 * 1024))\r\nContent-Length: 2\r\n\r\n{}", "offline", nil),
        ] as [(String, String, Int?)])
    func brokenAnswersGetTheSharedKinds(_ answer: String, _ kind: String, _ status: Int?) async throws {
        let server = try await RawAnswerServer(answer: answer)
        let result = await Self.client(server.base).resolve("https://go.relink.test/x")
        try await server.close()
        guard case .failed(let error) = result else {
            Issue.record("resolved \(answer.prefix(40))")
            return
        }
        #expect(error.kind.rawValue == kind, "\(answer.prefix(40)): \(error)")
        if let status { #expect(error.status == status) }
    }
}
