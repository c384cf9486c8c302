/// An absolute URI split into its parts (RFC 3986), tolerant of what people paste into links:
/// non-ASCII and spaces after the host are kept as they are (and encoded when redirecting),
/// control characters never are, so a value can never split a `Location` header.
public struct AbsoluteURI: Hashable, Sendable {
    /// The scheme, lowercased (`https`).
    public var scheme: String
    /// The host, lowercased; nil for a URI without an authority (`mailto:a@b.c`, `javascript:…`).
    public var host: String?
    public var port: Int?
    /// The path as written (percent-escapes kept).
    public var path: String
    public var query: String?
    public var fragment: String?
    /// The whole URI as given.
    public var string: String

    public var isHTTP: Bool { scheme == "http" || scheme == "https" }

    /// Parses `string`; nil when it is not an absolute URI, or is an http(s) URI without a valid host.
    public init?(_ string: String) {
        guard !string.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return nil }
        guard let colon = string.firstIndex(of: ":") else { return nil }
        let scheme = string[..<colon]
        guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
            scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0) })
        else { return nil }
        self.string = string
        self.scheme = scheme.lowercased()

        var rest = string[string.index(after: colon)...]
        if let hash = rest.firstIndex(of: "#") {
            fragment = String(rest[rest.index(after: hash)...])
            rest = rest[..<hash]
        }
        if let question = rest.firstIndex(of: "?") {
            query = String(rest[rest.index(after: question)...])
            rest = rest[..<question]
        }
        if rest.hasPrefix("//") {
            let authorityAndPath = rest.dropFirst(2)
            let authorityEnd = authorityAndPath.firstIndex(of: "/") ?? authorityAndPath.endIndex
            var authority = authorityAndPath[..<authorityEnd]
            path = String(authorityAndPath[authorityEnd...])
            if let at = authority.lastIndex(of: "@") {
                authority = authority[authority.index(after: at)...]
            }
            guard let (host, port) = Self.parseHostAndPort(authority) else { return nil }
            self.host = host
            self.port = port
        } else {
            path = String(rest)
        }
        if isHTTP && host == nil { return nil }
    }

    /// Whether this URI falls under `prefix`: same host, and its path is the prefix's path or below it.
    public func isUnder(_ prefix: DomainURIPrefix) -> Bool {
        guard isHTTP, host == prefix.host, port == prefix.port else { return false }
        return prefix.path.isEmpty || path == prefix.path || path.hasPrefix(prefix.path + "/")
    }

    private static func parseHostAndPort(_ authority: Substring) -> (String, Int?)? {
        var hostPart = authority
        var port: Int?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            hostPart = authority[...close]
            let inside = authority[authority.index(after: authority.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else { return nil }
            let afterHost = authority[authority.index(after: close)...]
            if !afterHost.isEmpty {
                guard afterHost.hasPrefix(":"), let parsed = parsePort(afterHost.dropFirst()) else { return nil }
                port = parsed.value
            }
        } else if let colon = authority.lastIndex(of: ":") {
            hostPart = authority[..<colon]
            guard let parsed = parsePort(authority[authority.index(after: colon)...]) else { return nil }
            port = parsed.value
        }
        guard !hostPart.isEmpty else { return nil }
        if !hostPart.hasPrefix("[") {
            // Registered names: letters, digits, '-', '.', '_', and non-ASCII for internationalised names.
            let valid = hostPart.unicodeScalars.allSatisfy {
                $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" || $0 == "." || $0 == "_" || $0.value > 0x7F
            }
            guard valid, !hostPart.hasPrefix("."), !hostPart.contains("..") else { return nil }
        }
        return (hostPart.lowercased(), port)
    }

    /// A port: empty (the scheme's default, `value` nil), or 0–65535; nil when it is neither.
    private static func parsePort(_ text: Substring) -> ParsedPort? {
        if text.isEmpty { return ParsedPort(value: nil) }
        guard text.count <= 5, text.allSatisfy(\.isASCIIDigitCharacter), let value = Int(text), value <= 65535 else {
            return nil
        }
        return ParsedPort(value: value)
    }

    private struct ParsedPort {
        var value: Int?
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value) }
    var isASCIIDigit: Bool { (0x30...0x39).contains(value) }
}

extension Character {
    var isASCIIDigitCharacter: Bool { isASCII && isNumber }
}
