/// Which addresses a server-side fetch (a link's page for its preview, a webhook) may connect to: public unicast
/// only. Loopback, private, shared (carrier NAT), link-local (cloud metadata at 169.254.169.254), multicast,
/// reserved, documentation and benchmarking networks are refused, in IPv4 and IPv6, and IPv4 carried in IPv6
/// (mapped, translated, NAT64, 6to4, Teredo) counts as the IPv4 address it carries. An operator may allow networks of its own
/// (an intranet site, tests on loopback).
public struct OutboundAddressPolicy: Sendable {
    /// Networks allowed although not public.
    public var allowed: [IPNetwork]

    public init(allowed: [IPNetwork] = []) {
        self.allowed = allowed
    }

    /// Why `address` may not be connected to, or nil when it may.
    public func refusal(_ address: IPAddress) -> String? {
        if allowed.contains(where: { $0.contains(address) }) { return nil }
        if let (network, name) = Self.refused.first(where: { $0.network.contains(address) }) {
            return "\(address) is \(name) (\(network))"
        }
        if address.version == .v6, let carried = Self.carriedIPv4(address), let reason = refusal(carried) {
            return "\(address) carries \(reason)"
        }
        return nil
    }

    /// The IPv4 address inside 6to4 (`2002:AABB:CCDD::/48`), Teredo (`2001:0::/32`, the client address inverted) and
    /// IPv4-translated addresses (`::ffff:0:a.b.c.d`, `::ffff:0:0/96`, RFC 2765). Mapped and NAT64 addresses are read as
    /// IPv4 already by `IPAddress`.
    static func carriedIPv4(_ address: IPAddress) -> IPAddress? {
        let bytes = address.bytes
        if bytes[0..<8].allSatisfy({ $0 == 0 }), bytes[8] == 0xFF, bytes[9] == 0xFF, bytes[10] == 0, bytes[11] == 0 {
            return IPAddress(bytes[12...15].map(String.init).joined(separator: "."))
        }
        if bytes[0] == 0x20, bytes[1] == 0x02 { return IPAddress(bytes[2...5].map(String.init).joined(separator: ".")) }
        if bytes[0] == 0x20, bytes[1] == 0x01, bytes[2] == 0, bytes[3] == 0 {
            return IPAddress(bytes[12...15].map { String($0 ^ 0xFF) }.joined(separator: "."))
        }
        return nil
    }

    static let refused: [(network: IPNetwork, name: String)] = [
        ("0.0.0.0/8", "this network"), ("10.0.0.0/8", "private"), ("100.64.0.0/10", "shared address space (carrier NAT)"),
        ("127.0.0.0/8", "loopback"), ("169.254.0.0/16", "link-local"), ("172.16.0.0/12", "private"),
        ("192.0.0.0/24", "IETF protocol assignments"), ("192.0.2.0/24", "documentation"), ("192.88.99.0/24", "6to4 relay anycast"),
        ("192.168.0.0/16", "private"), ("198.18.0.0/15", "benchmarking"), ("198.51.100.0/24", "documentation"),
        ("203.0.113.0/24", "documentation"), ("224.0.0.0/4", "multicast"), ("240.0.0.0/4", "reserved"),
        ("::1/128", "loopback"), ("::/96", "unspecified or IPv4-compatible"), ("64:ff9b:1::/48", "local-use NAT64"), ("100::/64", "discard-only"),
        ("2001:db8::/32", "documentation"),
        ("fc00::/7", "unique local (private)"), ("fe80::/10", "link-local"), ("fec0::/10", "site-local"), ("ff00::/8", "multicast"),
    ].map { (IPNetwork($0.0)!, $0.1) }
}
