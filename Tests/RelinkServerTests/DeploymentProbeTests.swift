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
@testable import RelinkTools

/// `relink verify --url` against a deployment that misbehaves: what it reads, and that it stops in time.
@Suite("Deployment probe")
struct DeploymentProbeTests {
    static let record = ShortLinkRecord(
        id: 1, projectId: "pictlink", domain: "https://go.pictlink.com", code: "Ab3x", longLink: "https://go.pictlink.com/?link=x",
        parameters: LinkParameters(), suffixOption: .short, idempotencyKey: nil, createdAt: Date(), updatedAt: Date())

    /// A deployment answering every path by `answer`.
    static func withDeployment(
        _ answer: @escaping @Sendable (Request) async throws -> Response, _ body: @Sendable (String) async throws -> Void
    )
        async throws
    {
        let router = Router()
        router.get("**") { request, _ in try await answer(request) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "deployment"))
        try await app.test(.live) { client in try await body("http://127.0.0.1:\(try #require(client.port))") }
    }

    /// A probe of `url` shut down however `body` ends: an HTTP client dropped unshut is a fatal error in a debug build,
    /// which would end the whole test run.
    static func withProbe(
        _ url: String, timeout: TimeAmount = .seconds(60), _ body: @Sendable (DeploymentProbe) async throws -> Void
    ) async throws {
        // Longer than the probe's own default, for servers in this busy process; the timeout's test sets its own.
        let probe = try DeploymentProbe(url: url, apiKey: "rl_key", timeout: timeout)
        let result: Result<Void, any Error>
        do { result = .success(try await body(probe)) } catch { result = .failure(error) }
        try await probe.shutdown()
        try result.get()
    }

    @Test(.measuresTime) func aBodyThatStallsAfterTheHeadIsStoppedAtTheTimeout() async throws {
        let answer: @Sendable (Request) async throws -> Response = { _ in
            Response(
                status: .ok, headers: [.contentType: "text/html", DeploymentProbe.uncountedHeaderName: "uncounted"],
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: "<html>"))
                    // Long enough that only the probe's own 1 s timeout ends it within the bound below, with a wide
                    // margin for the suites loading the machine meanwhile (7.9 s was seen in a full run).
                    try await Task.sleep(for: .seconds(15))
                    try await writer.finish(nil)
                })
        }
        try await Self.withDeployment(answer) { url in
            try await Self.withProbe(url, timeout: .seconds(1)) { probe in
                let started = ContinuousClock.now
                await #expect(throws: DeploymentProbe.ProbeError.self) { try await probe.answer(Self.record, client: .desktop) }
                #expect(ContinuousClock.now - started < .seconds(12))
            }
        }
    }

    @Test func readsRelativeURLsAgainstTheLinkAndShowsNoControlCharacters() async throws {
        let answer: @Sendable (Request) async throws -> Response = { request in
            switch request.headers[.userAgent] ?? "" {
            case let agent where agent.contains("Windows"):
                return Response(status: .found, headers: [.location: "/moved?to=1", DeploymentProbe.uncountedHeaderName: "uncounted"])
            case let agent where agent.contains("iPad"):
                return Response(
                    status: .notFound, headers: [.contentType: "text/html"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: "<title>Gone \u{1B}]0;pwned\u{07} away</title>")))
            case let agent where agent.contains("iPhone"):
                return Response(
                    status: .ok, headers: [.contentType: "text/html; charset=utf-8", DeploymentProbe.uncountedHeaderName: "uncounted"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: #"<a id="open" href="app/open">Open</a>"#)))
            default:
                let body = #"{"error": {"code": 401, "message": "bad key \u001b[31mred", "status": "UNAUTHENTICATED"}}"#
                return Response(
                    status: .unauthorized, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
            }
        }
        try await Self.withDeployment(answer) { url in
            try await Self.withProbe(url) { probe in
                // A browser clicking https://go.pictlink.com/Ab3x resolves these against the link, not the deployment.
                #expect(try await probe.answer(Self.record, client: .desktop) == .redirect("https://go.pictlink.com/moved?to=1"))
                let gone = try await probe.answer(Self.record, client: .iPad)
                #expect(gone.description.hasPrefix("refused: HTTP 404: Gone"), "\(gone)")
                #expect(!gone.description.unicodeScalars.contains { $0.properties.generalCategory == .control }, "\(gone)")
                #expect(try await probe.answer(Self.record, client: .iPhone) == .preview(open: "https://go.pictlink.com/app/open"))
                do {
                    _ = try await probe.answer(Self.record, client: .android)
                    Issue.record("a 401 did not stop the probe")
                } catch {
                    #expect("\(error)".contains("bad key ?[31mred"), "\(error)")
                    #expect(!"\(error)".unicodeScalars.contains { $0.properties.generalCategory == .control })
                }
            }
        }
    }

    @Test func anAnswerWithoutTheMarkStopsTheCheck() async throws {
        let answer: @Sendable (Request) async throws -> Response = { _ in Response(status: .badRequest) }
        try await Self.withDeployment(answer) { url in
            try await Self.withProbe(url) { probe in
                await #expect(throws: DeploymentProbe.ProbeError.self) { try await probe.answer(Self.record, client: .desktop) }
            }
        }
    }

    @Test func refusesADeploymentURLItCannotUse() async throws {
        for url in ["http://127.0.0.1:99999", "http://127.0.0.1:0", "ftp://x", "https://go.example.com/links", "https://a.example/?q=1"] {
            #expect(throws: DeploymentProbe.ProbeError.self, "\(url)") { _ = try DeploymentProbe(url: url, apiKey: nil) }
        }
        let probe = try DeploymentProbe(url: "http://[::1]:8080", apiKey: nil)
        #expect(probe.base.host == "::1")
        #expect(probe.base.port == 8080)
        try await probe.shutdown()
    }

    @Test func aMarkedClickNeedsAKeyOfTheLinksProject() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await TestSupport.application(store: store).test(.router) { client in
            func click(_ authorization: String?) async throws -> TestResponse {
                var headers = TestSupport.headers(agent: TestSupport.Agent.desktop)
                if let authorization { headers[.authorization] = authorization }
                return try await client.execute(uri: "/p/42", method: .get, headers: headers)
            }
            let plain = try await click(nil)
            #expect(plain.status == .found)
            #expect(plain.headers[DeploymentProbe.uncountedHeaderName] == nil)
            for marked in ["Bearer \(key)", "bearer\t\(key)", "BEARER   \(key)\t"] {
                let response = try await click(marked)
                #expect(response.status == .found, "\(marked)")
                #expect(response.headers[.location] == plain.headers[.location])
                #expect(response.headers[DeploymentProbe.uncountedHeaderName] == "uncounted", "\(marked)")
            }
            // A wrong or empty key is refused, never counted as an ordinary click.
            #expect(try await click("Bearer\trl_wrong").status == .unauthorized)
            let empty = try await click("Bearer   ")
            #expect(empty.status == .unauthorized)
            #expect(String(buffer: empty.body).contains("A marked click needs Authorization: Bearer"))
            // Other schemes are not marks: an ordinary click.
            for other in ["Basic dXNlcjpwdw==", "Bearer\(key)", "Token \(key)"] {
                let response = try await click(other)
                #expect(response.status == .found, "\(other)")
                #expect(response.headers[DeploymentProbe.uncountedHeaderName] == nil, "\(other)")
            }
        }
    }
}
