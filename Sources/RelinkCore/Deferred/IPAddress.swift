import Foundation

/// An IPv4 or IPv6 address, parsed from text, with the network prefix deferred-link matching compares
/// (/24 for IPv4, /64 for IPv6). IPv4-mapped IPv6 addresses (`::ffff:192.0.2.1`) and addresses of the well-known
/// NAT64 prefix (`64:ff9b::192.0.2.1`, RFC 6052, which a translator in front of an IPv6-only server gives IPv4
/// clients) count as the IPv4 address they carry: otherwise every such client would share one /64.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family, as FDL reports it to the app (`request_ip_version`); a mapped or NAT64 address is `v4`.
    public enum Version: Int, Sendable, Codable {
        case v4 = 4
        case v6 = 6

        /// FDL's `requestIpVersion`.
        public var name: String { self == .v4 ? "IP_V4" : "IP_V6" }
    }

    public let version: Version
    /// 4 or 16 bytes.
    public let bytes: [UInt8]

    /// - Parameter text: dotted IPv4 or IPv6 text, with an optional zone (`%eth0`).
    /// - Returns: nil for anything else.
    public init?(_ text: String) {
        var text = Substring(text)
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // an IPv6 zone
        if let v4 = Self.parseV4(text) {
            version = .v4
            bytes = v4
        } else if let v6 = Self.parseV6(text) {
            if v6[0..<10].allSatisfy({ $0 == 0 }) && v6[10] == 0xFF && v6[11] == 0xFF || v6[0..<12].elementsEqual(Self.nat64Prefix) {
                version = .v4
                bytes = Array(v6[12...])
            } else {
                version = .v6
                bytes = v6
            }
        } else {
            return nil
        }
    }

    /// `64:ff9b::/96`.
    static let nat64Prefix: [UInt8] = [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]

    /// The network part matched for "same network": the first 3 bytes of IPv4, the first 8 of IPv6.
    public var networkPrefix: [UInt8] { Array(bytes.prefix(version == .v4 ? 3 : 8)) }

    public var description: String {
        if version == .v4 { return bytes.map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }

    /// An IPv6 address as browsers write it in a URL (WHATWG URL): eight groups of lowercase hex without leading
    /// zeros, the first longest run of two or more zero groups as `::`, and never a dotted IPv4 tail.
    /// - Parameter text: IPv6 text, without brackets.
    /// - Returns: nil when it is not an IPv6 address.
    public static func browserIPv6Text(_ text: Substring) -> String? {
        guard let bytes = parseV6(text) else { return nil }
        let groups = stride(from: 0, to: 16, by: 2).map { UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]) }
        var (runStart, runLength) = (-1, 1)
        var index = 0
        while index < 8 {
            var end = index
            while end < 8 && groups[end] == 0 { end += 1 }
            if end - index > runLength { (runStart, runLength) = (index, end - index) }
            index = max(end, index + 1)
        }
        let hex = groups.map { String($0, radix: 16) }
        guard runStart >= 0 else { return hex.joined(separator: ":") }
        return hex[..<runStart].joined(separator: ":") + "::" + hex[(runStart + runLength)...].joined(separator: ":")
    }

    /// Four decimal parts of 1 to 3 ASCII digits, each at most 255, read byte by byte: every click parses its
    /// client's address, and this allocates only the 4 bytes.
    private static func parseV4(_ text: Substring) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(4)
        var value = 0
        var digits = 0
        for byte in text.utf8 {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, bytes.count < 3 else { return nil }
                bytes.append(UInt8(value))
                (value, digits) = (0, 0)
            } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"), digits < 3 {
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
                guard value <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, bytes.count == 3 else { return nil }
        bytes.append(UInt8(value))
        return bytes
    }

    private static func parseV6(_ text: Substring) -> [UInt8]? {
        guard text.contains(":") else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: String) -> [UInt8]? {
            if part.isEmpty { return [] }
            var bytes: [UInt8] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, piece) in pieces.enumerated() {
                if index == pieces.count - 1, piece.contains("."), let v4 = parseV4(piece) {
                    bytes += v4
                    continue
                }
                guard (1...4).contains(piece.count), let value = UInt16(piece, radix: 16) else { return nil }
                bytes += [UInt8(value >> 8), UInt8(value & 0xFF)]
            }
            return bytes
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 16 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 16 else { return nil }
        return head + Array(repeating: 0, count: 16 - head.count - tail.count) + tail
    }
}
