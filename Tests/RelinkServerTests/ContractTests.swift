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

    /// A body with every field a closed schema names, each filled (its first enum value, a string, 1, true, one item).
    static func sample(_ schema: Any, in document: [String: Any]) -> Any {
        guard var schema = schema as? [String: Any] else { return "x" }
        if let reference = schema["$ref"] as? String, let target = resolve(reference, in: document) as? [String: Any] { schema = target }
        if let values = schema["enum"] as? [Any], let first = values.first { return first }
        let types = (schema["type"] as? [String]) ?? (schema["type"] as? String).map { [$0] } ?? []
        if let properties = schema["properties"] as? [String: Any] { return properties.mapValues { sample($0, in: document) } }
        if types.contains("array") { return [sample(schema["items"] ?? [:], in: document)] }
        if types.contains("integer") { return 1 }
        if types.contains("boolean") { return true }
        return "x"
    }

    /// Every key path of a JSON value (`rules.rules[].when.countries`).
    static func keyPaths(_ value: Any, _ prefix: String = "") -> Set<String> {
        if let object = value as? [String: Any] {
            return object.reduce(into: []) { paths, entry in
                let path = prefix.isEmpty ? entry.key : prefix + "." + entry.key
                paths.insert(path)
                paths.formUnion(keyPaths(entry.value, path))
            }
        }
        if let array = value as? [Any] { return array.reduce(into: []) { $0.formUnion(keyPaths($1, prefix + "[]")) } }
        return []
    }

    /// The request bodies whose schemas take no other fields (`RequestBodyShape`) and the Swift messages agree field
    /// for field: a body with every field the document names decodes and encodes again with all of them (none the
    /// Swift type drops), and the shape check finds no unknown field in it (none the document lacks).
    @Test func closedRequestSchemasAndTheirMessagesNameTheSameFields() throws {
        let document = try Self.document()
        let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
        func roundTrip<Message: Codable>(_ type: Message.Type) throws {
            let name = String(describing: Message.self)
            let schema = try #require(schemas[name] as? [String: Any])
            #expect(schema["additionalProperties"] as? Bool == false, "\(name)")
            let body = try JSONSerialization.data(withJSONObject: Self.sample(schema, in: document))
            #expect(RequestBodyShape.unknownField(in: body, schema: name) == nil, "\(name)")
            let again = try JSONEncoder().encode(try JSONDecoder().decode(Message.self, from: body))
            let paths = Self.keyPaths(try JSONSerialization.jsonObject(with: body))
            #expect(Self.keyPaths(try JSONSerialization.jsonObject(with: again)) == paths, "\(name)")
            #expect(paths.count > 5 || name == "CreateWebhookRequest", "\(name): \(paths.sorted())")
        }
        try roundTrip(CreateShortLinkRequest.self)
        try roundTrip(UpdateLinkRequest.self)
        try roundTrip(CreateWebhookRequest.self)
    }

    /// A field the API does not know is refused with FDL's message, naming it and where it is; on the attribution
    /// requests, which FDL's SDKs fill with fields of their own, it is not.
    @Test func anUnknownFieldIsRefusedWhereTheSchemaIsClosed() async throws {
        let (store, key) = try await T.storeWithKey()
        try await T.application(store: store).test(.router) { client in
            func post(_ uri: String, _ body: String, method: HTTPRequest.Method = .post) async throws -> TestResponse {
                try await client.execute(
                    uri: uri, method: method, headers: [.contentType: "application/json", .authorization: "Bearer \(key)"],
                    body: ByteBuffer(string: body))
            }
            let long = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa"
            let cases = [
                (#"{"longDynamicLink": "\#(long)", "maxclicks": 1}"#, #"Unknown name \"maxclicks\": Cannot find field."#),
                (
                    #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "link": "https://pictlink.com/a", "iosInfo": {"iosBundleID": "x"}}}"#,
                    #"Unknown name \"iosBundleID\" at 'dynamicLinkInfo.iosInfo'"#
                ),
                (
                    #"{"longDynamicLink": "\#(long)", "rules": {"rules": [{"when": {"contries": ["ES"]}, "then": {"ofl": "https://pictlink.com/es"}}]}}"#,
                    #"Unknown name \"contries\" at 'rules.rules[0].when'"#
                ),
                (#"{"longDynamicLink": "\#(long)", "suffix": {"option": "SHORT", "custom": "x"}}"#, #"Unknown name \"custom\" at 'suffix'"#),
            ]
            for (body, message) in cases {
                let response = try await post("/v1/shortLinks", body)
                #expect(response.status == .badRequest && response.text.contains(message), "\(body): \(response.text)")
            }
            // Beside what the check cannot read (a number past a double, a lone surrogate), or in another encoding
            // than UTF-8, a misspelt field would pass unseen: such bodies are refused whole.
            let unreadable = [
                #"{"longDynamicLink": "\#(long)", "maxclicks": 1, "z": 1e999}"#, #"{"longDynamicLink": "\#(long)", "maxclicks": 1, "p": "\udc00"}"#,
            ]
            for body in unreadable {
                let response = try await post("/v1/shortLinks", body)
                #expect(response.status == .badRequest && response.text.contains("out of range"), "\(body): \(response.text)")
            }
            let utf16 = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [.contentType: "application/json", .authorization: "Bearer \(key)"],
                body: ByteBuffer(
                    bytes: Array(#"{"longDynamicLink": "\#(long)", "maxclicks": 1}"#.utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
            #expect(utf16.status == .badRequest && utf16.text.contains("not UTF-8 JSON text"), "\(utf16.text)")
            let minted = try await post("/v1/shortLinks", #"{"longDynamicLink": "\#(long)", "maxClicks": 2}"#)
            #expect(minted.status == .ok)
            let shortLink = try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink
            let patched = try await post("/v1/links/\(PercentEncoding.encodeQueryValue(shortLink))", #"{"maxclicks": 0}"#, method: .patch)
            #expect(patched.status == .badRequest && patched.text.contains(#"Unknown name \"maxclicks\""#), "\(patched.text)")
            let webhook = try await post("/v1/webhooks", #"{"url": "https://example.com/hook", "event": ["click"]}"#)
            #expect(webhook.status == .badRequest && webhook.text.contains(#"Unknown name \"event\""#), "\(webhook.text)")
            let claim = try await post("/v1/installAttribution", #"{"bundleId": "jp.furyu.pictlink.ios", "somethingNew": 1}"#)
            #expect(claim.status == .ok, "\(claim.text)")
            // Open schemas are the decoder's alone: what it takes passes, and malformed JSON gets its own message.
            let odd = try await post("/v1/installAttribution", #"{"bundleId": "jp.furyu.pictlink.ios", "x": 1e999, "y": "\udc00"}"#)
            #expect(odd.status == .ok, "\(odd.text)")
            let truncated = try await post("/v1/shortLinks", #"{"longDynamicLink": "\#(long)""#)
            #expect(truncated.status == .badRequest && !truncated.text.contains("out of range"), "\(truncated.text)")
            // A trailing comma is no JSON, though Foundation's parsers take it (Android's reads a null there).
            for (uri, body) in [
                ("/v1/shortLinks", #"{"longDynamicLink": "\#(long)",}"#), ("/v1/installAttribution", #"{"bundleId": "jp.furyu.pictlink.ios",}"#),
            ] {
                let comma = try await post(uri, body)
                #expect(comma.status == .badRequest && comma.text.contains("a comma before a closing bracket"), "\(comma.text)")
            }
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
        metrics.pendingClickOverCap(projectId: "pictlink")
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
