import Crypto
import Foundation
import RelinkCore

/// Keyed hashes of client addresses: matching needs to know whether two addresses (or networks) are the same,
/// never what they are, so raw addresses are never stored. The key is the operator's secret, kept away from the
/// database (see `AddressHashSecrets`); earlier secrets still hash for clicks kept before a rotation.
final class AddressHasher: Sendable {
    struct Hashes: Sendable, Equatable {
        var address: String
        var network: String
        var version: IPAddress.Version
    }

    /// The keyed HMACs, current first, made once: a copy per hash skips re-keying, the costly part.
    private let keyed: [HMAC<SHA256>]

    init(secrets: AddressHashSecrets) {
        keyed = ([secrets.current] + secrets.previous).map { HMAC<SHA256>(key: SymmetricKey(data: Data($0.utf8))) }
    }

    /// The address's and its network's hashes (hex, 128 bits each) under the current secret, or nil for text that
    /// is not an address.
    func hashes(of text: String?) -> Hashes? {
        guard let text, let address = IPAddress(text) else { return nil }
        return hashes(of: address, with: keyed[0])
    }

    /// The same under each previous secret, newest first: what clicks kept before a rotation carry.
    func previousHashes(of text: String?) -> [Hashes] {
        guard keyed.count > 1, let text, let address = IPAddress(text) else { return [] }
        return keyed.dropFirst().map { hashes(of: address, with: $0) }
    }

    private func hashes(of address: IPAddress, with keyed: HMAC<SHA256>) -> Hashes {
        // One label byte keeps the address and network hashes of one address apart.
        func hash(_ label: UInt8, _ bytes: [UInt8]) -> String {
            var mac = keyed
            // The label, the version and the bytes, as one message, from the stack.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 2 + bytes.count) { message in
                message[0] = label
                message[1] = UInt8(address.version.rawValue)
                for (offset, byte) in bytes.enumerated() { message[2 + offset] = byte }
                mac.update(data: UnsafeRawBufferPointer(message))
            }
            return mac.finalize().withUnsafeBytes { Hex.string($0, count: 16) }
        }
        return Hashes(
            address: hash(UInt8(ascii: "a"), address.bytes), network: hash(UInt8(ascii: "n"), address.networkPrefix), version: address.version)
    }
}
