import RelinkCore

/// What per-client limits count under: an IPv4 address, or the IPv6 network of `ipv6PrefixLength` bits (a /64
/// by default). One IPv6 client usually holds a whole /64 and would otherwise get a fresh budget from each of
/// its addresses. A value of two integers, so taking a token allocates nothing.
struct ClientNetwork: Hashable, Sendable, CustomStringConvertible {
    private let high: UInt64
    private let low: UInt64
    /// 4, 6, or 0 for a client without a readable address (all such clients share one budget).
    private let version: UInt8
    private let prefixLength: UInt8

    static let unknown = ClientNetwork(high: 0, low: 0, version: 0, prefixLength: 0)

    private init(high: UInt64, low: UInt64, version: UInt8, prefixLength: UInt8) {
        self.high = high
        self.low = low
        self.version = version
        self.prefixLength = prefixLength
    }

    /// - Parameters:
    ///   - address: as `RequestOrigin.clientAddress` gives it.
    ///   - ipv6PrefixLength: 1 to 128; `--ipv6-limit-prefix`.
    init(_ address: String?, ipv6PrefixLength: Int = 64) {
        guard let address, let parsed = IPAddress(address) else {
            self = .unknown
            return
        }
        let bytes = parsed.bytes
        if parsed.version == .v4 {
            let value = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            self.init(high: value, low: 0, version: 4, prefixLength: 32)
            return
        }
        let high = bytes[0..<8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let low = bytes[8..<16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let bits = min(128, max(1, ipv6PrefixLength))
        self.init(
            high: bits >= 64 ? high : high & ~(UInt64.max >> UInt64(bits)),
            low: bits <= 64 ? 0 : (bits == 128 ? low : low & ~(UInt64.max >> UInt64(bits - 64))),
            version: 6, prefixLength: UInt8(bits))
    }

    /// `192.0.2.7`, `2001:db8:1:2::/64`, `unknown`: for logs and tests.
    var description: String {
        switch version {
        case 4: return [24, 16, 8, 0].map { String((high >> UInt64($0)) & 0xFF) }.joined(separator: ".")
        case 6:
            let groups = [high, low].flatMap { word in [48, 32, 16, 0].map { String((word >> UInt64($0)) & 0xFFFF, radix: 16) } }
            return groups.joined(separator: ":") + "/\(prefixLength)"
        default: return "unknown"
        }
    }
}

extension ClientNetwork {
    /// An address as logs may show it: its IPv4 /24 or IPv6 /48, never the whole address.
    static func anonymized(_ address: String?) -> String {
        guard let address, let parsed = IPAddress(address) else { return "unknown" }
        if parsed.version == .v4 { return parsed.bytes.prefix(3).map(String.init).joined(separator: ".") + ".0/24" }
        let groups = stride(from: 0, to: 6, by: 2).map { String(UInt16(parsed.bytes[$0]) << 8 | UInt16(parsed.bytes[$0 + 1]), radix: 16) }
        return groups.joined(separator: ":") + "::/48"
    }
}
