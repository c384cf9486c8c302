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

    @Test func theShapeCheckRefusesACommaWithNoValueOnOneSide() {
        for text in [#"{"a": 1,}"#, "[1, 2 ,\n]", #"{"a": [1,], "b": 2}"#, "[1,,2]", "[,1]", #"{, "a": 1}"#, ","] {
            #expect(JSONShape.problem(Data(text.utf8)) != nil, "\(text)")
        }
        for text in [#"{"a": 1, "b": [1, 2]}"#, #"{"a": ",}", "b": "[,"}"#, "[[], {}, \"\"]", "[]", "{}", #""""#] {
            #expect(JSONShape.problem(Data(text.utf8)) == nil, "\(text)")
        }
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
        #"{"deepLink": "a", "resolvedLink": "r", "matchMessage": "m", "attributionConfidence": "UNIQUE",}"#,
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

    /// A number past a double's range, even in a member no client reads: Android's parser refuses it, so all three
    /// call the answer malformed (a 2xx) or take only its status (an error).
    @Test func aNumberPastADoubleIsMalformed() async throws {
        let claim = #"{"matchMessage": "m", "x": 1e999999, "deepLink": "x", "attributionConfidence": "WEAK"}"#
        try await Self.withAnswer(.ok, claim) { server, _ in
            guard case .failed(let error) = await Self.client(server).claimDeferredLink() else {
                Issue.record("a claim read a number past a double")
                return
            }
            #expect(error.kind == .malformed && error.status == 200)
        }
        let digits = #"{"deepLink": "x", "resolvedLink": "r", "routeParameters": {}, "n": [-1"# + String(repeating: "0", count: 400) + "]}"
        try await Self.withAnswer(.ok, digits) { server, _ in
            guard case .failed(let error) = await Self.client(server).resolve("https://go.relink.test/x") else {
                Issue.record("a resolve read a number past a double")
                return
            }
            #expect(error.kind == .malformed)
        }
        try await Self.withAnswer(.notFound, #"{"error": {"status": "NOT_FOUND", "message": "gone", "code": 1E400}}"#) { server, _ in
            guard case .failed(let error) = await Self.client(server).resolve("https://go.relink.test/x") else {
                Issue.record("resolved a 404")
                return
            }
            #expect(error.kind == .http && error.status == 404 && error.apiStatus == nil)
        }
        // Small, long and fine-grained numbers are numbers: the answer is read.
        let fine =
            #"{"matchMessage": "m", "x": [1e308, -1.7976931348623157e308, 1e-999999, 123456789012345678901234567890], "#
            + #""deepLink": "x", "attributionConfidence": "WEAK"}"#
        try await Self.withAnswer(.ok, fine) { server, _ in
            guard case .matched = await Self.client(server).claimDeferredLink() else {
                Issue.record("a claim with numbers in range was not read")
                return
            }
        }
    }

    /// The API client refuses such an answer too, and takes only the status of such an error.
    @Test func theAPIClientRefusesANumberPastADouble() async throws {
        let router = Router()
        router.get("/v1/links") { _, _ in
            let body = #"{"links": [], "n": 1e999999}"#
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        router.get("/v1/links/{link}") { _, _ in
            let body = #"{"error": {"code": 404, "status": "NOT_FOUND", "message": "gone", "n": -1e999999}}"#
            return Response(status: .notFound, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
        }
        try await RelinkAppClientTests.withStub(router) { server in
            let client = RelinkClient(server: server, apiKey: "k")
            do throws(RelinkClientError) {
                _ = try await client.links()
                Issue.record("read a list holding a number past a double")
            } catch {
                #expect(error.message.contains("past a double"), "\(error)")
            }
            do throws(RelinkClientError) {
                _ = try await client.link("x")
                Issue.record("read a 404")
            } catch {
                #expect(error.status == 404 && error.apiStatus == nil, "\(error)")
            }
        }
    }

    /// The API client (the CLI's) never follows a redirect, so its key never goes to another server; it stops an
    /// answer past its cap, and one that never ends at its timeout.
    @Test func theAPIClientFollowsNoRedirectAndBoundsTheAnswer() async throws {
        let keySeen = NIOLockedValueBox(false)
        let elsewhere = Router()
        elsewhere.get("/v1/links") { request, _ in
            keySeen.withLockedValue { $0 = $0 || request.headers[.authorization] != nil }
            return Response(
                status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"links": []}"#)))
        }
        try await RelinkAppClientTests.withStub(elsewhere) { target in
            for status in [301, 302, 307, 308] {
                let redirect = try await RawAnswerServer(
                    answer: "HTTP/1.1 \(status) Moved\r\nLocation: \(target.absoluteString)/v1/links\r\nContent-Length: 0\r\n\r\n")
                do throws(RelinkClientError) {
                    _ = try await RelinkClient(server: redirect.base, apiKey: "rl_secret").links()
                    Issue.record("followed a \(status)")
                } catch {
                    #expect(error.status == status && error.message.contains("not followed"), "\(error)")
                }
                try await redirect.close()
            }
        }
        #expect(!keySeen.withLockedValue { $0 })

        let huge = String(repeating: " ", count: RelinkClient.maxAnswerBytes + 1)
        let large = try await RawAnswerServer(
            answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(huge.utf8.count + 2)\r\n\r\n{}" + huge)
        do throws(RelinkClientError) {
            _ = try await RelinkClient(server: large.base, apiKey: "k").links()
            Issue.record("read an answer past the cap")
        } catch {
            #expect(error.message.contains("larger than"), "\(error)")
        }
        try await large.close()

        // An answer that says it is larger, or compressed (which the client asks not to be), is refused by its head.
        for head in ["Content-Length: 99999999999", "Content-Encoding: x-packed\r\nContent-Length: 2"] {
            let refused = try await RawAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\(head)\r\n\r\n{}")
            do throws(RelinkClientError) {
                _ = try await RelinkClient(server: refused.base, apiKey: "k").links()
                Issue.record("read an answer with \(head)")
            } catch {
                #expect(error.message.contains("larger than") || error.message.contains("compressed"), "\(error)")
            }
            try await refused.close()
        }

        let silent = try await RawAnswerServer(answer: "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{", keepOpen: true)
        let started = ContinuousClock.now
        do throws(RelinkClientError) {
            _ = try await RelinkClient(server: silent.base, apiKey: "k", timeout: 1).links()
            Issue.record("read an answer that never ended")
        } catch {
            #expect(error.message.contains("within"), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        try await silent.close()
    }

    /// An interim `100 Continue` and then nothing is no answer: `timeout` at the timeout, not retried, in all three
    /// (a final answer after it is read as usual).
    @Test func aContinueAndThenSilenceTimesOut() async throws {
        let server = try await RawAnswerServer(answer: "HTTP/1.1 100 Continue\r\n\r\n", keepOpen: true)
        let started = ContinuousClock.now
        let result = await Self.client(server.base).resolve("https://go.relink.test/x")
        let elapsed = ContinuousClock.now - started
        try await server.close()
        guard case .failed(let error) = result else {
            Issue.record("resolved a 100 Continue")
            return
        }
        #expect(error.kind == .timeout, "\(error)")
        #expect(elapsed >= .seconds(1.5) && elapsed < .seconds(5), "\(elapsed)")
        let body = #"{"deepLink": "x", "resolvedLink": "r"}"#
        let answered = try await RawAnswerServer(
            answer: "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        let read = await Self.client(answered.base).resolve("https://go.relink.test/x")
        try await answered.close()
        guard case .resolved = read else {
            Issue.record("a final answer after 100 Continue was not read: \(read)")
            return
        }
    }
}
