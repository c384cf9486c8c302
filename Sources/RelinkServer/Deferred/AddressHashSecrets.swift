import Crypto
import Foundation

/// The secrets client addresses are hashed with: the current one, and earlier ones that pending clicks hashed
/// before a rotation may still carry (they match until those clicks expire, `deferred.tokenWindowHours`).
///
/// They never live in the database: whoever holds the database and the secret can reverse IPv4 hashes by trying
/// every address, so the two are kept apart (`RELINK_SECRET`, or a secret file of mode 0600).
public struct AddressHashSecrets: Sendable, Equatable {
    public var current: String
    public var previous: [String]

    public init(current: String, previous: [String] = []) {
        self.current = current
        self.previous = previous.filter { $0 != current }
    }

    /// A random secret kept only in memory: for tests and throwaway servers, whose pending clicks do not outlive them.
    public static func ephemeral() -> AddressHashSecrets {
        AddressHashSecrets(current: newSecret())
    }

    /// 256 random bits, base64.
    public static func newSecret() -> String {
        SymmetricKey(size: .bits256).withUnsafeBytes { Data($0).base64EncodedString() }
    }

    /// The shortest secret accepted: shorter ones could be guessed, and then every address hash reversed.
    public static let minimumLength = 16
}
