import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkCore
import Testing

@testable import RelinkClient

/// `Relink` where the conformance scenarios do not reach: the server URLs it refuses, `Retry-After`, one claim in
/// flight, and what it sends.
@Suite("Relink (the app client)")
struct RelinkAppClientTests {
    @Test(arguments: [
        ("https://go.example.com", true), ("http://127.0.0.1:8080", true), ("http://localhost", true), ("http://[::1]:9", true),
        ("http://10.0.2.2:8080", true), ("http://go.example.com", false), ("http://10.0.2.3", false), ("ftp://go.example.com", false),
        ("https:///nohost", false),
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

    @Test(
        arguments: [
            ("1", 1), (" 2 ", 2), ("120", 120), ("", nil), ("-1", nil), ("1.5", nil), ("Wed, 21 Oct 2015 07:28:00 GMT", nil),
            ("9999999999", nil),
        ] as [(String, Int?)])
    func readsRetryAfterAsDelaySeconds(_ header: String, _ seconds: Int?) {
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
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "test"))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
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
}
