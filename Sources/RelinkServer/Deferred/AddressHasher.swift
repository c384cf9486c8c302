import Crypto
import Foundation
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// Keyed hashes of client addresses: matching needs to know whether two addresses (or networks) are the same,
/// never what they are, so raw addresses are never stored. The key is the operator's secret, or one generated
/// on first start and kept in the database, so that every instance on that database hashes alike.
final class AddressHasher: Sendable {
    static let settingKey = "address-hash-secret"

    private let store: any SettingsRepository
    private let configured: SymmetricKey?
    /// The keyed HMAC, made once: a copy per hash skips re-keying, the costly part.
    private let keyed = NIOLockedValueBox<HMAC<SHA256>?>(nil)

    init(store: any SettingsRepository, secret: String?) {
        self.store = store
        self.configured = secret.map { SymmetricKey(data: Data($0.utf8)) }
    }

    func key() async throws -> SymmetricKey {
        if let configured { return configured }
        let fresh = SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
        let stored = try await store.settingInsertingIfAbsent(Self.settingKey, value: fresh)
        return SymmetricKey(data: Data(base64Encoded: stored) ?? Data(stored.utf8))
    }

    private func hmac() async throws -> HMAC<SHA256> {
        if let keyed = keyed.withLockedValue({ $0 }) { return keyed }
        let made = HMAC<SHA256>(key: try await key())
        keyed.withLockedValue { $0 = made }
        return made
    }

    /// The address's and its network's hashes (hex, 128 bits each), or nil for text that is not an address.
    func hashes(of text: String?) async throws -> (address: String, network: String, version: IPAddress.Version)? {
        guard let text, let address = IPAddress(text) else { return nil }
        let keyed = try await hmac()
        // One label byte keeps the address and network hashes of one address apart.
        func hash(_ label: UInt8, _ bytes: [UInt8]) -> String {
            var mac = keyed
            mac.update(data: [label, UInt8(address.version.rawValue)] + bytes)
            return mac.finalize().withUnsafeBytes { Hex.string($0, count: 16) }
        }
        return (hash(UInt8(ascii: "a"), address.bytes), hash(UInt8(ascii: "n"), address.networkPrefix), address.version)
    }
}
