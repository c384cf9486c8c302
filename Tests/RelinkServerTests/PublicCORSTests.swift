import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkCore
import Testing

@testable import RelinkServer

/// A web page or webview calls the two keyless endpoints with the browser's fetch: the preflight is answered, every
/// answer (a refusal included) is readable from any origin, and the keyed API stays same-origin.
@Suite("CORS for apps' endpoints")
struct PublicCORSTests {
    typealias T = TestSupport
    static let origin = HTTPField.Name("Origin")!

    @Test(arguments: ["/v1/installAttribution", "/v1/reopenAttribution"])
    func thePreflightAllowsAJSONPostFromAnyOrigin(_ path: String) async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            let preflight = try await client.execute(
                uri: path, method: .options,
                headers: [Self.origin: "https://shop.example", HTTPField.Name("Access-Control-Request-Method")!: "POST"])
            #expect(preflight.status == .noContent)
            #expect(preflight.headers[.accessControlAllowOrigin] == "*")
            #expect(preflight.headers[.accessControlAllowMethods] == "POST")
            #expect(preflight.headers[.accessControlAllowHeaders] == "Content-Type, Accept")
        }
    }

    @Test func answersAndRefusalsAreReadableFromAnyOrigin() async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            let answer = try await client.execute(
                uri: "/v1/reopenAttribution", method: .post, headers: [Self.origin: "https://shop.example"],
                body: ByteBuffer(string: #"{"requestedLink": "https://go.pictlink.com/p/1"}"#))
            #expect(answer.status == .ok)
            #expect(answer.headers[.accessControlAllowOrigin] == "*")
            let refused = try await client.execute(
                uri: "/v1/installAttribution", method: .post, headers: [Self.origin: "https://shop.example"], body: ByteBuffer(string: "{"))
            #expect(refused.status == .badRequest)
            #expect(refused.headers[.accessControlAllowOrigin] == "*")
            #expect(refused.headers[.accessControlExposeHeaders] == "Retry-After")
            let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(refused.body.readableBytesView))
            #expect(body.error.status == "INVALID_ARGUMENT")
        }
    }

    @Test func theKeyedAPIIsNotOpenToOtherOrigins() async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            let preflight = try await client.execute(uri: "/v1/shortLinks", method: .options, headers: [Self.origin: "https://evil.example"])
            #expect(preflight.status == .methodNotAllowed)
            #expect(preflight.headers[.accessControlAllowOrigin] == nil)
            let minted = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [Self.origin: "https://evil.example"], body: ByteBuffer(string: "{}"))
            #expect(minted.headers[.accessControlAllowOrigin] == nil)
        }
    }
}
