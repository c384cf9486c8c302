import Foundation
import Hummingbird
import HummingbirdTesting
import RelinkStore
import Testing

@testable import RelinkServer

@Suite("API errors")
struct APIErrorMiddlewareTests {
    /// A database that is down (PostgreSQL restarting, a network cut) is a 503 with the API's JSON body, not a 500.
    @Test func anUnavailableDatabaseIs503() async throws {
        let router = Router(context: RelinkRequestContext.self)
        router.add(middleware: APIErrorMiddleware())
        router.get("v1/down") { _, _ -> String in throw StoreError.unavailable("the database is unavailable: connection refused") }
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/v1/down", method: .get)
            #expect(response.status == .serviceUnavailable)
            let body = String(buffer: response.body)
            #expect(body.contains(#""status":"UNAVAILABLE""#) || body.contains(#""status" : "UNAVAILABLE""#))
            #expect(!body.contains("connection refused"))
        }
    }
}
