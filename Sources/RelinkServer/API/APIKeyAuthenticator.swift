import Foundation
import HTTPTypes
import Hummingbird
import RelinkCore
import RelinkStore

/// Who is calling the API: the key from `?key=` (as FDL clients send it) or `Authorization: Bearer`.
struct APIKeyAuthenticator: Sendable {
    let store: any RelinkStore
    let configuration: RelinkConfiguration

    struct Caller: Sendable {
        let key: APIKeyRecord
        let project: Project
    }

    static let iOSBundleHeader = HTTPField.Name("X-Ios-Bundle-Identifier")!

    func authenticate(_ request: Request) async throws -> Caller {
        guard let key = Self.key(in: request) else { throw APIError.missingKey }
        guard let record = try await store.apiKey(hash: APIKeys.hash(key)), !record.isRevoked,
            let project = configuration.project(id: record.projectId)
        else { throw APIError.invalidKey }
        // iOS clients name their app; an app outside the key's project may not use it.
        if let bundle = request.headers[Self.iOSBundleHeader], project.iOSApp(bundleId: bundle) == nil {
            throw APIError.permissionDenied("Requests from this iOS client application \(bundle) are blocked for this API key.")
        }
        return Caller(key: record, project: project)
    }

    /// The caller when the request names a key (which must then be valid); nil for a request without one.
    func authenticateIfPresent(_ request: Request) async throws -> Caller? {
        Self.key(in: request) == nil ? nil : try await authenticate(request)
    }

    static func key(in request: Request) -> String? {
        if let key = request.uri.queryParameters.get("key"), !key.isEmpty { return key }
        if let authorization = request.headers[.authorization], authorization.lowercased().hasPrefix("bearer ") {
            let key = authorization.dropFirst("bearer ".count).trimmingCharacters(in: .whitespaces)
            return key.isEmpty ? nil : key
        }
        return nil
    }
}
