/// An absolute URI split into its parts (RFC 3986), tolerant of what people paste into links:
/// non-ASCII and spaces after the host are kept as they are (and encoded when redirecting),
/// control characters never are, so a value can never split a `Location` header.
///
/// Parsing works on UTF-8 bytes in one pass and copies only the scheme and host; it runs several times
/// per click (validation, allowlist, planning), so it stays cheap.
public struct AbsoluteURI: Hashable, Sendable {
    /// The whole URI as given.
    public let string: String
    /// The scheme, lowercased (`https`).
    public let scheme: String
    /// The host, lowercased; nil for a URI without an authority (`mailto:a@b.c`, `javascript:…`).
    public let host: String?
    public let port: Int?
    package let pathRange: Range<String.Index>
    private let queryRange: Range<String.Index>?
    private let fragmentRange: Range<String.Index>?

    /// The path as written (percent-escapes kept).
    public var path: String { String(string[pathRange]) }
    public var query: String? { queryRange.map { String(string[$0]) } }
    public var fragment: String? { fragmentRange.map { String(string[$0]) } }

    public var isHTTP: Bool { scheme == "http" || scheme == "https" }

    /// Parses `string`; nil when it is not an absolute URI, or is an http(s) URI without a valid host.
    /// - Parameter string: the URI, without surrounding whitespace.
    public init?(_ string: String) {
        var contiguous = string
        guard let parts = contiguous.withUTF8({ Self.split($0) }) else { return nil }
        let utf8 = string.utf8
        func index(_ offset: Int) -> String.Index { utf8.index(utf8.startIndex, offsetBy: offset) }
        self.string = string
        self.scheme = parts.scheme
        self.host = parts.host
        self.port = parts.port
        self.pathRange = index(parts.path.lowerBound)..<index(parts.path.upperBound)
        self.queryRange = parts.query.map { index($0.lowerBound)..<index($0.upperBound) }
        self.fragmentRange = parts.fragment.map { index($0.lowerBound)..<index($0.upperBound) }
    }

    private struct Parts {
        var scheme: String
        var host: String?
        var port: Int?
        var path: Range<Int>
        var query: Range<Int>?
        var fragment: Range<Int>?
    }

    /// The whole parse, over contiguous bytes by offset.
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>) -> Parts? {
        var colon = -1
        var hash = -1
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if byte < 0x20 || byte == 0x7F { return nil }
            if colon < 0 {
                if byte == UInt8(ascii: ":") { colon = offset }
            } else if hash < 0, byte == UInt8(ascii: "#") {
                hash = offset
            }
        }
        guard colon > 0, isLetter(bytes[0]) else { return nil }
        for offset in 1..<colon {
            let byte = bytes[offset]
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            else { return nil }
        }
        let scheme = lowercasedASCII(UnsafeBufferPointer(rebasing: bytes[0..<colon]))
        var end = bytes.count
        var fragment: Range<Int>?
        if hash >= 0 {
            fragment = (hash + 1)..<end
            end = hash
        }
        var query: Range<Int>?
        if let question = (colon + 1..<end).first(where: { bytes[$0] == UInt8(ascii: "?") }) {
            query = (question + 1)..<end
            end = question
        }
        let isHTTP = scheme == "http" || scheme == "https"
        let hierarchyStart = colon + 1
        guard end - hierarchyStart >= 2, bytes[hierarchyStart] == UInt8(ascii: "/"), bytes[hierarchyStart + 1] == UInt8(ascii: "/")
        else {
            if isHTTP { return nil }
            return Parts(scheme: scheme, host: nil, port: nil, path: hierarchyStart..<end, query: query, fragment: fragment)
        }
        let authorityStart = hierarchyStart + 2
        let authorityEnd = (authorityStart..<end).first(where: { bytes[$0] == UInt8(ascii: "/") }) ?? end
        var hostStart = authorityStart
        if let at = (authorityStart..<authorityEnd).last(where: { bytes[$0] == UInt8(ascii: "@") }) { hostStart = at + 1 }
        guard let (host, port) = parseHostAndPort(UnsafeBufferPointer(rebasing: bytes[hostStart..<authorityEnd])) else {
            return nil
        }
        return Parts(scheme: scheme, host: host, port: port, path: authorityEnd..<end, query: query, fragment: fragment)
    }

    private static func parseHostAndPort(_ authority: UnsafeBufferPointer<UInt8>) -> (String, Int?)? {
        var hostEnd = authority.count
        var port: Int?
        if authority.first == UInt8(ascii: "[") {
            guard let close = authority.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return nil }
            for offset in 1..<close {
                let byte = authority[offset]
                guard isHexDigit(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".") else { return nil }
            }
            hostEnd = close + 1
            if hostEnd < authority.count {
                guard authority[hostEnd] == UInt8(ascii: ":"),
                    let parsed = parsePort(UnsafeBufferPointer(rebasing: authority[(hostEnd + 1)...]))
                else { return nil }
                port = parsed.value
            }
        } else {
            if let colon = authority.lastIndex(of: UInt8(ascii: ":")) {
                hostEnd = colon
                guard let parsed = parsePort(UnsafeBufferPointer(rebasing: authority[(colon + 1)...])) else { return nil }
                port = parsed.value
            }
            // Registered names: letters, digits, '-', '.', '_', and non-ASCII for internationalised names.
            guard hostEnd > 0, authority[0] != UInt8(ascii: ".") else { return nil }
            var previousDot = false
            for offset in 0..<hostEnd {
                let byte = authority[offset]
                let dot = byte == UInt8(ascii: ".")
                guard isLetter(byte) || isDigit(byte) || dot || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte > 0x7F,
                    !(dot && previousDot)
                else { return nil }
                previousDot = dot
            }
        }
        guard hostEnd > 0 else { return nil }
        return (lowercasedASCII(UnsafeBufferPointer(rebasing: authority[0..<hostEnd])), port)
    }

    private struct ParsedPort {
        var value: Int?
    }

    /// A port: empty (the scheme's default, `value` nil), or 0–65535; nil when it is neither.
    private static func parsePort(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedPort? {
        if bytes.isEmpty { return ParsedPort(value: nil) }
        guard bytes.count <= 5 else { return nil }
        var value = 0
        for byte in bytes {
            guard isDigit(byte) else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value <= 65535 ? ParsedPort(value: value) : nil
    }

    /// ASCII-lowercases bytes into a String.
    static func lowercasedASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (offset, byte) in bytes.enumerated() {
                buffer[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            }
            return bytes.count
        }
    }

    package static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }

    package static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }
}

extension Unicode.Scalar {
    package var isASCIILetter: Bool { (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }
    package var isASCIIDigit: Bool { (0x30...0x39).contains(value) }
}

extension Character {
    package var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
