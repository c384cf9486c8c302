import Crypto
import Foundation
import RelinkCore
import RelinkStore

/// API keys: `rl_` and 32 random base-62 characters (190 bits). Only the SHA-256 of a key is stored.
public enum APIKeys {
    /// A new key: `rl_` for the API, `rlc_` for the console only.
    public static func generate(scope: APIKeyScope = .api) -> String {
        var generator = SystemRandomNumberGenerator()
        return (scope == .api ? "rl_" : "rlc_") + ShortCodeGenerator.random(length: 32, using: &generator)
    }

    /// Hex SHA-256 of the key, as stored.
    public static func hash(_ key: String) -> String {
        Hex.string(SHA256.hash(data: Data(key.utf8)))
    }

    /// The first characters of a key, kept to tell keys apart in listings.
    public static func prefix(of key: String) -> String {
        String(key.prefix(7))
    }

    /// Creates a key for `projectId` and returns it with its record: the only time the key itself exists.
    public static func create(
        projectId: String, name: String?, scope: APIKeyScope = .api, in store: some APIKeyRepository
    ) async throws -> (key: String, record: APIKeyRecord) {
        let key = generate(scope: scope)
        let record = try await store.insertAPIKey(projectId: projectId, name: name, keyHash: hash(key), keyPrefix: prefix(of: key), scope: scope)
        return (key, record)
    }
}
