/// Where a project's links live: a host (`https://go.pictlink.com`) or a host plus a path
/// (`https://pictlink.com/links`). Short links and long links are this prefix plus `/<code>` or `/?…`.
public struct DomainURIPrefix: Hashable, Sendable, CustomStringConvertible {
    /// `https`, or `http` (for hosts that sit behind a TLS-terminating proxy during development).
    public let scheme: String
    /// The host, lowercased.
    public let host: String
    public let port: Int?
    /// The path prefix without a trailing slash: `""` for a bare host, `/links` for a prefix with a path.
    public let path: String
    /// `https://host[:port][/path]`, the canonical spelling (kept: every short link and redirect uses it).
    public let description: String

    /// Why a text is not a domain URI prefix; each case carries the text as given.
    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case notAURI(String)
        case notHTTP(String)
        case hasQueryOrFragment(String)
        case hasUserInfo(String)
        case badPath(String)
        case dotSegment(String)

        public var description: String {
            switch self {
            case .notAURI(let value): "'\(value)' is not an absolute URL with a host"
            case .notHTTP(let value): "'\(value)' must start with https:// (or http://)"
            case .hasQueryOrFragment(let value): "'\(value)' must not have a query or fragment"
            case .hasUserInfo(let value): "'\(value)' must not have a user name or password"
            case .badPath(let value):
                "'\(value)' has a path with characters other than letters, digits and -._~/"
            case .dotSegment(let value):
                "'\(value)' has a '.' or '..' segment, which browsers remove before they ask: no link under it could be reached"
            }
        }
    }

    /// - Parameter string: `https://host[:port][/path]`, without a query or fragment.
    /// - Throws: `ParseError` saying what is wrong.
    public init(_ string: String) throws(ParseError) {
        guard let uri = AbsoluteURI(string), let host = uri.host else { throw .notAURI(string) }
        guard uri.isHTTP else { throw .notHTTP(string) }
        guard uri.query == nil, uri.fragment == nil else { throw .hasQueryOrFragment(string) }
        guard !string.contains("@") else { throw .hasUserInfo(string) }
        var path = uri.path
        while path.hasSuffix("/") { path.removeLast() }
        let allowed = path.unicodeScalars.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || "-._~/".unicodeScalars.contains($0)
        }
        guard allowed, !path.contains("//") else { throw .badPath(string) }
        guard !path.split(separator: "/").contains(where: { $0 == "." || $0 == ".." }) else { throw .dotSegment(string) }
        self.scheme = uri.scheme
        self.host = host
        self.port = uri.port
        self.path = path
        self.description = "\(uri.scheme)://\(uri.port.map { "\(host):\($0)" } ?? host)\(path)"
    }

    /// The `host[:port]` a browser's request for this prefix names: without the root's final dot, which requests
    /// drop (`RequestOrigin`), and without the scheme's own port, which browsers leave out.
    public var requestHost: String {
        let name = host.hasSuffix(".") && !host.hasSuffix("..") ? String(host.dropLast()) : host
        guard let port, port != (scheme == "https" ? 443 : 80) else { return name }
        return "\(name):\(port)"
    }

    /// Why requests would never reach this prefix by its own spelling, for the configuration to refuse: its host is
    /// spelt as no browser sends it (see `hostSpellingProblem`), ends in the root's dot, or the prefix names the
    /// scheme's own port. Nil when requests name it as written.
    public var unreachableSpelling: String? {
        if let problem = hostSpellingProblem { return "'\(description)' \(problem)" }
        guard requestHost != hostAndPort else { return nil }
        return
            "'\(description)' is asked for as \(scheme)://\(requestHost)\(path) (browsers drop a host's final dot and the scheme's own port); write it so"
    }

    /// What is wrong with the host's spelling for a host requests name: not ASCII (browsers send a name's IDNA form,
    /// `xn--…`), an IPv4 address as browsers would not write it (they take any host ending in a number for one,
    /// `127.1` or `0x7f000001`, and send it as four decimal numbers), or an IPv6 address not in the short form
    /// browsers write (`[::1]`, not `[0:0:0:0:0:0:0:1]`); or a port or name no request can have, such as an `xn--`
    /// label that is not Punycode (browsers refuse the URL). Nil for a plain
    /// name or address.
    public var hostSpellingProblem: String? {
        if host.utf8.contains(where: { $0 > 0x7F }) {
            return "has a host that is not ASCII; browsers ask for its IDNA form (xn--…), so write that"
        }
        if let port, !(1...65535).contains(port) { return "names port \(port), which no request reaches; ports are 1 to 65535" }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        if !host.hasPrefix("["), host.utf8.count > 253 || labels.contains(where: { $0.utf8.count > 63 }) {
            return "has a host name longer than DNS allows (at most 63 characters a label, 253 in all), which no request reaches"
        }
        if let label = labels.first(where: { $0.utf8.count >= 4 && $0.prefix(4).lowercased() == "xn--" && !Punycode.isALabel($0) }) {
            return "has a label '\(label)' that is not an IDNA A-label (xn-- and the Punycode of a name that is not ASCII), which browsers refuse"
        }
        if host.hasPrefix("["), host.hasSuffix("]") {
            let inside = host.dropFirst().dropLast()
            guard let written = IPAddress.browserIPv6Text(inside), written == inside else {
                let form = IPAddress.browserIPv6Text(inside).map { " ([\($0)])" } ?? ""
                return "has an IPv6 address that browsers write another way\(form); write it so"
            }
            return nil
        }
        let name = host.hasSuffix(".") ? host.dropLast() : Substring(host)
        guard let last = name.split(separator: ".", omittingEmptySubsequences: false).last, Self.isNumber(last) else { return nil }
        guard let address = IPAddress(String(name)), address.version == .v4, address.description == name else {
            return "has a host that browsers take for an IPv4 address; write it as four decimal numbers from 0 to 255 without leading zeros"
        }
        return nil
    }

    /// A label browsers read as a number (WHATWG URL's "ends in a number"): decimal digits, or `0x` and hex digits.
    private static func isNumber(_ label: Substring) -> Bool {
        let bytes = label.utf8
        if !bytes.isEmpty, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) { return true }
        guard bytes.count >= 2, bytes.first == UInt8(ascii: "0"), bytes.dropFirst().first.map({ $0 | 0x20 }) == UInt8(ascii: "x") else {
            return false
        }
        return bytes.dropFirst(2).allSatisfy { byte in
            (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
        }
    }

    /// `host` or `host:port`, as in a `Host` header.
    public var hostAndPort: String {
        port.map { "\(host):\($0)" } ?? host
    }

    /// The part of a request path after this prefix (`/abc` for `/links/abc` under `/links`),
    /// or nil when the path is not under the prefix. The prefix's own path answers `/`.
    /// - Parameter requestPath: a request's path.
    /// - Returns: the part below this prefix's path (`/` at least), or nil when the request is not below it.
    public func relativePath(of requestPath: Substring) -> Substring? {
        if path.isEmpty { return requestPath.isEmpty ? "/" : requestPath }
        guard requestPath.hasPrefix(path) else { return nil }
        let rest = requestPath.dropFirst(path.count)
        if rest.isEmpty { return "/" }
        return rest.hasPrefix("/") ? rest : nil
    }

    /// The URL of a path under this prefix: `url(path: "/abc")` is `https://example.com/links/abc`.
    /// - Parameter relative: a path below the prefix, starting with `/`.
    /// - Returns: the absolute URL.
    public func url(path relative: String) -> String {
        description + relative
    }
}

extension DomainURIPrefix: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        do {
            try self.init(string)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
