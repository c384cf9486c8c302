/// Where API keys live, by hash.
public protocol APIKeyRepository: Sendable {
    func insertAPIKey(projectId: String, name: String?, keyHash: String, keyPrefix: String, scope: APIKeyScope) async throws -> APIKeyRecord
    func apiKey(hash: String) async throws -> APIKeyRecord?
    /// Every key, or a project's, oldest first.
    func apiKeys(projectId: String?) async throws -> [APIKeyRecord]
    /// Revokes a key; nil when there is no such key. Its console sessions end with it.
    func revokeAPIKey(id: Int64) async throws -> APIKeyRecord?
}

extension APIKeyRepository {
    /// An API key (not a console-only one).
    public func insertAPIKey(projectId: String, name: String?, keyHash: String, keyPrefix: String) async throws -> APIKeyRecord {
        try await insertAPIKey(projectId: projectId, name: name, keyHash: keyHash, keyPrefix: keyPrefix, scope: .api)
    }
}
