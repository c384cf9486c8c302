import Crypto
import Foundation
import Hummingbird
import RelinkCore
import RelinkStore

/// hummingbird-auth's session storage kept in Relink's own database (`ConsoleSessionRepository`), so every instance
/// on one PostgreSQL knows every session. Session ids are stored as their SHA-256: reading the database gives no
/// cookie that signs in. Each key keeps at most `maximumPerKey` sessions; expired ones are dropped as new ones come.
struct ConsoleSessionDriver: PersistDriver {
    let store: any ConsoleSessionRepository
    var maximumPerKey = 20

    static func idHash(_ key: String) -> String { Hex.string(SHA256.hash(data: Data(key.utf8))) }

    func create<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        try await set(key: key, value: value, expires: expires)
    }

    func set<Object: Codable & Sendable>(key: String, value: Object, expires: Duration?) async throws {
        guard let session = value as? ConsoleSession else { throw PersistError.invalidConversion }
        let data = String(decoding: try JSONEncoder().encode(session), as: UTF8.self)
        let lifetime = expires ?? ConsoleSessions.lifetime
        let expiresAt = Date().addingTimeInterval(Double(lifetime.components.seconds))
        try await store.saveConsoleSession(
            ConsoleSessionRecord(idHash: Self.idHash(key), keyId: session.keyId, data: data, expiresAt: expiresAt), maximumPerKey: maximumPerKey)
    }

    func get<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> Object? {
        try await getWithTTL(key: key, as: Object.self)?.object
    }

    func getWithTTL<Object: Codable & Sendable>(key: String, as: Object.Type) async throws -> (object: Object, ttl: Duration?)? {
        let now = Date()
        guard let record = try await store.consoleSession(idHash: Self.idHash(key), now: now) else { return nil }
        guard let object = try? JSONDecoder().decode(Object.self, from: Data(record.data.utf8)) else { throw PersistError.invalidConversion }
        return (object, .seconds(max(0, record.expiresAt.timeIntervalSince(now))))
    }

    func remove(key: String) async throws {
        try await store.removeConsoleSession(idHash: Self.idHash(key))
    }
}
