import Crypto
import Foundation
import RelinkCore
import RelinkStore

/// API keys: `rl_` and 32 random base-62 characters (190 bits). Only the SHA-256 of a key is stored.
public enum APIKeys {
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        return "rl_" + ShortCodeGenerator.random(length: 32, using: &generator)
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
    public static func create(projectId: String, name: String?, in store: some APIKeyRepository) async throws -> (key: String, record: APIKeyRecord) {
        let key = generate()
        let record = try await store.insertAPIKey(projectId: projectId, name: name, keyHash: hash(key), keyPrefix: prefix(of: key))
        return (key, record)
    }
}
