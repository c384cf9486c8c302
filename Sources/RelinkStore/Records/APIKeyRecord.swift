import Foundation

/// What a key may be used for.
public enum APIKeyScope: String, Sendable, Codable, CaseIterable {
    /// The REST API (and, with it, the console).
    case api = "API"
    /// Signing in to the console only (`relink keys create --console`): the API refuses it.
    case console = "CONSOLE"
}

/// An API key as stored: only its hash and a short prefix (to tell keys apart in listings), never the key.
public struct APIKeyRecord: Sendable, Equatable {
    public var id: Int64
    public var projectId: String
    public var name: String?
    /// Hex SHA-256 of the key.
    public var keyHash: String
    /// The key's first characters, such as `rl_Ab3x`.
    public var keyPrefix: String
    public var createdAt: Date
    public var revokedAt: Date?
    public var scope: APIKeyScope

    public init(
        id: Int64, projectId: String, name: String?, keyHash: String, keyPrefix: String, createdAt: Date, revokedAt: Date?,
        scope: APIKeyScope = .api
    ) {
        self.id = id
        self.projectId = projectId
        self.name = name
        self.keyHash = keyHash
        self.keyPrefix = keyPrefix
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.scope = scope
    }

    public var isRevoked: Bool { revokedAt != nil }
}
