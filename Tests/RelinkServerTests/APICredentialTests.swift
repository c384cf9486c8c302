import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// A request names one API key: two different ones are refused, whichever way they come.
@Suite("API credentials")
struct APICredentialTests {
    typealias T = TestSupport

    @Test func twoDifferentKeysAreRefusedAndOneKeyTwiceIsThatKey() async throws {
        let (store, key) = try await T.storeWithKey()
        let (otherKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            func ambiguous(_ uri: String, _ headers: HTTPFields = [:]) async throws {
                let response = try await client.execute(uri: uri, method: .get, headers: headers)
                try ShortLinkAPITests.expectError(response, .badRequest, "INVALID_ARGUMENT", "two different API keys")
            }
            // The query's key used to win over the header's, and the first of two query keys over the second.
            try await ambiguous("/v1/links?key=\(otherKey)", [.authorization: "Bearer \(key)"])
            try await ambiguous("/v1/links?key=\(key)&key=\(otherKey)")
            try await ambiguous("/v1/links?key=\(key)&key=rl_wrong")
            var twoFields = HTTPFields()
            twoFields.append(HTTPField(name: .authorization, value: "Bearer \(key)"))
            twoFields.append(HTTPField(name: .authorization, value: "bearer \(otherKey)"))
            try await ambiguous("/v1/links", twoFields)
            // The public endpoints read a key when one is sent, and refuse two the same way.
            let claim = try await client.execute(
                uri: "/v1/reopenAttribution?key=\(key)", method: .post, headers: [.authorization: "Bearer \(otherKey)"],
                body: ByteBuffer(string: "{}"))
            try ShortLinkAPITests.expectError(claim, .badRequest, "INVALID_ARGUMENT", "two different API keys")

            // One key, however often and however sent, is that key.
            var sameTwice = HTTPFields()
            sameTwice.append(HTTPField(name: .authorization, value: "Bearer \(key)"))
            sameTwice.append(HTTPField(name: .authorization, value: "Bearer  \(key)"))
            for (uri, headers) in [
                ("/v1/links?key=\(key)", [.authorization: "Bearer \(key)"]), ("/v1/links?key=\(key)&key=\(key)", [:]),
                ("/v1/links", sameTwice), ("/v1/links?key=", [.authorization: "Bearer \(key)"]),
                ("/v1/links?key=\(key)", [.authorization: "Basic dXNlcjpwYXNz"]),
            ] as [(String, HTTPFields)] {
                #expect(try await client.execute(uri: uri, method: .get, headers: headers).status == .ok, "\(uri) \(headers)")
            }
        }
    }
}
