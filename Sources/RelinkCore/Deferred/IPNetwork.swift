import Foundation

/// An IPv4 or IPv6 network in CIDR notation (`10.0.0.0/8`, `fd00::/8`), such as the addresses of trusted proxies.
///
/// Like ``IPAddress``, an IPv4-mapped IPv6 network (`::ffff:10.0.0.0/104`) is the IPv4 network it maps
/// (`10.0.0.0/8`), so an IPv4 network contains both the plain and the mapped form of its addresses. Bits past the
/// prefix are cleared: `192.0.2.7/24` is `192.0.2.0/24`. An address without a prefix is a network of one
/// address (`/32` or `/128`).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The network's first address (the bits past the prefix are zero).
    public let address: IPAddress
    /// How many leading bits an address must share with ``address``: 0...32 for IPv4, 0...128 for IPv6.
    public let prefixLength: Int

    /// The network of `address` with `prefixLength` leading bits, or nil when the length does not fit the
    /// address's version.
    /// - Parameters:
    ///   - address: any address of the network.
    ///   - prefixLength: its prefix length.
    public init?(address: IPAddress, prefixLength: Int) {
        guard (0...address.bytes.count * 8).contains(prefixLength) else { return nil }
        self.address = IPAddress(unchecked: address.version, Self.masked(address.bytes, prefixLength))
        self.prefixLength = prefixLength
    }

    /// Parses `address/prefix` or a single address; nil for anything else, including whitespace, an empty or
    /// non-decimal prefix, a prefix too long for the address, and an IPv4-mapped network shorter than `/96`.
    /// - Parameter text: `192.0.2.0/24`, `2001:db8::/32` or `198.51.100.7`.
    public init?(_ text: String) {
        let addressText: Substring
        var prefixLength: Int?
        if let slash = text.firstIndex(of: "/") {
            addressText = text[..<slash]
            let digits = text[text.index(after: slash)...]
            guard (1...3).contains(digits.utf8.count), digits.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let length = Int(digits)
            else { return nil }
            prefixLength = length
        } else {
            addressText = Substring(text)
        }
        guard !addressText.contains("%"), let address = IPAddress(String(addressText)) else { return nil }
        if address.version == .v4 && addressText.contains(":"), let length = prefixLength {
            // `::ffff:a.b.c.d/n` counts the 96 bits of the mapping prefix, which IPAddress drops.
            guard length >= 96 else { return nil }
            prefixLength = length - 96
        }
        self.init(address: address, prefixLength: prefixLength ?? address.bytes.count * 8)
    }

    /// Whether `address` is in this network. An IPv4 address never is in an IPv6 network nor the reverse,
    /// except through the IPv4-mapped form, which ``IPAddress`` already reads as IPv4.
    /// - Parameter address: the address to test.
    /// - Returns: true when its first `prefixLength` bits are the network's.
    public func contains(_ address: IPAddress) -> Bool {
        guard address.version == self.address.version else { return false }
        let network = self.address.bytes
        let bytes = address.bytes
        let whole = prefixLength >> 3
        for index in 0..<whole where bytes[index] != network[index] { return false }
        let rest = prefixLength & 7
        if rest == 0 { return true }
        let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
        return bytes[whole] & mask == network[whole]
    }

    /// `10.0.0.0/8`; IPv6 in ``IPAddress``'s uncompressed form.
    public var description: String { "\(address)/\(prefixLength)" }

    /// The loopback and private networks: `127.0.0.0/8`, `10.0.0.0/8`, `172.16.0.0/12`, `192.168.0.0/16`,
    /// `::1/128` and `fc00::/7` (unique local). Their IPv4-mapped forms are included, since ``IPAddress`` reads
    /// `::ffff:10.1.2.3` as `10.1.2.3`. The proxies a server trusts by default.
    public static let loopbackAndPrivate: [IPNetwork] = [
        "127.0.0.0/8", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "::1/128", "fc00::/7",
    ].map { IPNetwork($0)! }

    /// Parses a comma-separated list (`10.0.0.0/8, fd00::/8`), spaces around entries allowed.
    ///
    /// - Returns: the networks in order, or the first entry that is not a network (an empty one when the list
    ///   has an empty entry or none at all).
    /// - Parameter text: the list, as `--trusted-proxies` takes it.
    public static func parseList(_ text: String) -> Result<[IPNetwork], InvalidEntry> {
        var networks: [IPNetwork] = []
        for entry in text.split(separator: ",", omittingEmptySubsequences: false) {
            var trimmed = entry
            while let first = trimmed.first, first == " " || first == "\t" { trimmed.removeFirst() }
            while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
            let candidate = String(trimmed)
            guard let network = IPNetwork(candidate) else { return .failure(InvalidEntry(text: candidate)) }
            networks.append(network)
        }
        return .success(networks)
    }

    /// An entry of a list given to ``parseList(_:)`` that is not a network.
    public struct InvalidEntry: Error, Equatable, CustomStringConvertible {
        /// The entry, without the spaces around it.
        public var text: String

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(text: String) { self.text = text }

        public var description: String {
            text.isEmpty
                ? "an empty entry is not a network (expected a list like 10.0.0.0/8,fd00::/8)"
                : "'\(text)' is not an IP address or CIDR network (like 10.0.0.0/8 or fd00::/8)"
        }
    }

    private static func masked(_ bytes: [UInt8], _ prefixLength: Int) -> [UInt8] {
        var bytes = bytes
        for index in bytes.indices {
            let kept = prefixLength - index * 8
            if kept >= 8 { continue }
            bytes[index] = kept <= 0 ? 0 : bytes[index] & UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
        }
        return bytes
    }
}

extension IPAddress {
    /// Callers pass 4 bytes for `.v4` and 16 for `.v6`, already normalised.
    fileprivate init(unchecked version: Version, _ bytes: [UInt8]) {
        self.version = version
        self.bytes = bytes
    }
}
