import Foundation

/// A console session as stored: under the SHA-256 of its cookie's id (a database read yields no usable cookie),
/// tied to the key that signed in (revoking the key ends it).
public struct ConsoleSessionRecord: Sendable, Equatable {
    /// Hex SHA-256 of the session id.
    public var idHash: String
    public var keyId: Int64
    /// The session's own data, JSON.
    public var data: String
    public var expiresAt: Date

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(idHash: String, keyId: Int64, data: String, expiresAt: Date) {
        self.idHash = idHash
        self.keyId = keyId
        self.data = data
        self.expiresAt = expiresAt
    }
}
