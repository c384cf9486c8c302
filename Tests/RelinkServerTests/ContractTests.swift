import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// What the API promises and how it is held to it: the OpenAPI document served as its file is, the schemas as
/// strict as the handlers, 405 for a method a served path does not take, and /metrics as Prometheus wants it.
@Suite("API contract")
struct ContractTests {
    typealias T = TestSupport

    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../../Sources/RelinkServer/API/openapi.json")

    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: documentURL)) as? [String: Any])
    }

    static let operationMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    @Test func openAPIDocumentIsServedByteForByteAsTheFile() async throws {
        let file = try Data(contentsOf: Self.documentURL)
        let app = try T.application()
        try await app.test(.router) { client in
            let served = try await client.execute(uri: "/v1/openapi.json", method: .get)
            #expect(served.status == .ok)
            #expect(served.headers[.contentType] == "application/json; charset=utf-8")
            #expect(Data(served.body.readableBytesView) == file)
        }
    }

    @Test func openAPIDocumentIsOpenAPI31() throws {
        let document = try Self.document()
        #expect((document["openapi"] as? String)?.hasPrefix("3.1.") == true)
        let info = try #require(document["info"] as? [String: Any])
        #expect(info["title"] is String && info["version"] is String)
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var operationIds: [String] = []
        for (path, item) in paths {
            #expect(path.hasPrefix("/v1/"))
            for (method, value) in item where method != "parameters" {
                #expect(Self.operationMethods.contains(method), "\(method) \(path)")
                let operation = try #require(value as? [String: Any], "\(method) \(path)")
                operationIds.append(try #require(operation["operationId"] as? String, "\(method) \(path)"))
                let responses = try #require(operation["responses"] as? [String: Any], "\(method) \(path)")
                #expect(responses.keys.contains { $0.hasPrefix("2") }, "\(method) \(path)")
                #expect(responses.keys.allSatisfy { $0.count == 3 && Int($0) != nil }, "\(method) \(path)")
                // Every operation may meet the store (the key's lookup at least) and the failed-key limit.
                #expect(responses["503"] != nil && responses["429"] != nil, "\(method) \(path) leaves out 429 or 503")
            }
        }
        #expect(Set(operationIds).count == operationIds.count)
        // Every reference points at something in the document.
        for reference in Self.references(in: document) {
            #expect(Self.resolve(reference, in: document) != nil, "\(reference) points at nothing")
        }
    }

    @Test func attributionSchemasRequireWhatTheHandlersRequire() async throws {
        let refused = [
            ("/v1/installAttribution", "{}"), ("/v1/installAttribution", #"{"bundleId": ""}"#),
            ("/v1/installAttribution", #"{"bundleId": "  "}"#), ("/v1/reopenAttribution", "{}"),
            ("/v1/reopenAttribution", #"{"requestedLink": ""}"#), ("/v1/reopenAttribution", #"{"requestedLink": " "}"#),
        ]
        let app = try T.application()
        try await app.test(.router) { client in
            for (uri, body) in refused {
                let response = try await client.execute(uri: uri, method: .post, body: ByteBuffer(string: body))
                #expect(response.status == .badRequest, "\(uri) \(body)")
            }
        }
        // The schemas refuse the same bodies: the field is required, not empty and not blank.
        let schemas = try #require((try Self.document()["components"] as? [String: Any])?["schemas"] as? [String: [String: Any]])
        for (schema, field) in [("InstallAttributionRequest", "bundleId"), ("ReopenAttributionRequest", "requestedLink")] {
            #expect((schemas[schema]?["required"] as? [String])?.contains(field) == true, "\(schema)")
            let property = try #require((schemas[schema]?["properties"] as? [String: [String: Any]])?[field])
            #expect(property["minLength"] as? Int == 1, "\(schema).\(field)")
            #expect(property["pattern"] as? String == #"\S"#, "\(schema).\(field)")
        }
    }

    @Test func aMethodAServedAPIPathDoesNotTakeIs405WithAllow() async throws {
        let app = try T.application()
        try await app.test(.router) { client in
            for (method, uri, allow) in [
                (HTTPRequest.Method.trace, "/v1/links", "GET, HEAD"), (.delete, "/v1/shortLinks", "POST"), (.get, "/v1/shortLinks", "POST"),
                (.put, "/v1/links/https%3A%2F%2Fgo.pictlink.com%2Fx", "GET, HEAD, PATCH"), (.trace, "/v1/openapi.json", "GET, HEAD"),
                (.get, "/v1/webhooks/7/test", "POST"), (.get, "/v1/installAttribution", "OPTIONS, POST"), (.options, "/v1/shortLinks", "POST"),
            ] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(uri)")
                #expect(response.headers[.allow] == allow, "\(method) \(uri)")
                let body = try JSONDecoder().decode(APIErrorBody.self, from: Data(response.body.readableBytesView))
                #expect(body.error.code == 405)
            }
            // A path no route serves stays 404, whatever the method.
            for (method, uri) in [(HTTPRequest.Method.trace, "/v1/nothing"), (.get, "/v1/nothing"), (.trace, "/v1/links/a/b/c"), (.post, "/v1")] {
                let response = try await client.execute(uri: uri, method: method)
                #expect(response.status == .notFound, "\(method) \(uri)")
                #expect(response.headers[.allow] == nil)
            }
            // Methods the path takes are untouched.
            #expect(try await client.execute(uri: "/v1/openapi.json", method: .head).status == .ok)
            #expect(try await client.execute(uri: "/v1/links", method: .get).status == .unauthorized)
        }
    }

    @Test func everyMetricFamilyHasHelpAndType() throws {
        let metrics = RelinkMetrics()
        // Families whose series appear on first use.
        metrics.request(.shortLink, platform: .android, outcome: .redirect, duration: .milliseconds(1))
        metrics.rateLimited("claim")
        metrics.storeError("lookup")
        metrics.clickTrackingError("timeout")
        let lines = metrics.render().split(separator: "\n")
        func names(_ prefix: String) -> [String] {
            lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count).prefix { $0 != " " }) }
        }
        let typed = names("# TYPE ")
        let helped = names("# HELP ")
        #expect(Set(typed) == Set(RelinkMetrics.Family.allCases.map(\.rawValue)))
        #expect(typed.count == Set(typed).count && helped.sorted() == typed.sorted())
        for line in lines where line.hasPrefix("# HELP ") {
            #expect(line.split(separator: " ", maxSplits: 3).count == 4, "\(line)")
        }
        // Every sample belongs to a family with both.
        for line in lines where !line.hasPrefix("#") {
            let name = String(line.prefix { $0 != "{" && $0 != " " })
            let family =
                ["_bucket", "_sum", "_count"].first { name.hasSuffix($0) && !typed.contains(name) }.map { String(name.dropLast($0.count)) } ?? name
            #expect(typed.contains(family), "\(line)")
        }
    }

    static func references(in value: Any) -> [String] {
        if let object = value as? [String: Any] {
            let own = (object["$ref"] as? String).map { [$0] } ?? []
            return own + object.values.flatMap { references(in: $0) }
        }
        if let array = value as? [Any] { return array.flatMap { references(in: $0) } }
        return []
    }

    /// A local JSON pointer (`#/components/schemas/Error`) followed through the document.
    static func resolve(_ reference: String, in document: [String: Any]) -> Any? {
        guard reference.hasPrefix("#/") else { return nil }
        var value: Any? = document
        for token in reference.dropFirst(2).split(separator: "/") {
            let key = String(token).replacing("~1", with: "/").replacing("~0", with: "~")
            value = (value as? [String: Any])?[key]
        }
        return value
    }
}
