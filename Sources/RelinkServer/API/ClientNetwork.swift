import RelinkCore

/// What per-address limits count under: an IPv4 address, or the /64 of an IPv6 address. One IPv6 client usually
/// holds a whole /64, and would otherwise get a fresh budget from each of its addresses.
enum ClientNetwork {
    /// The key for `address` (as `RequestOrigin.clientAddress` gives it): `192.0.2.7`, `2001:db8:1:2::/64`;
    /// `unknown` without an address.
    static func key(_ address: String?) -> String {
        guard let address else { return "unknown" }
        guard let parsed = IPAddress(address) else { return address }
        guard parsed.version == .v6 else { return parsed.description }
        let prefix = parsed.networkPrefix
        let groups = stride(from: 0, to: 8, by: 2).map { String(UInt16(prefix[$0]) << 8 | UInt16(prefix[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/64"
    }
}
