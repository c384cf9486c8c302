import HTTPTypes
import Hummingbird
import NIOCore
import RelinkCore

/// Who sent a request and which host it was for, reading forwarded headers only as the operator's
/// `ForwardedHeaderPolicy` allows (otherwise any client could claim any host or address).
///
/// With trust, the chain of addresses is the configured header's list followed by the socket's peer, the first
/// hop. Only a peer that is a trusted proxy makes the header count at all. The chain is then walked from the
/// right: each trusted proxy vouches for the address to its left, and the first address that is not a trusted
/// proxy is the client. What a client sends lands on the left of what its proxies add, so the walk stops before
/// reaching it, whatever it claims (a public address, or a private-looking one to pass as a proxy). When every
/// address is trusted, the leftmost is the client.
///
/// An entry that is not an address (garbage, `unknown`, an obfuscated `_identifier` of `Forwarded`, a
/// `Forwarded` element without `for=`) ends the walk: a trusted proxy vouched for an address nobody can use,
/// and what lies to its left is untrustworthy. The client is then the nearest valid address to its right, the
/// last trusted proxy reached (or the peer itself). That keeps a client from hiding behind garbage (it gets the
/// proxy's address, shared with every such client, never an address of its choosing) and never yields nil
/// while the peer is known. The walk also stops after `maximumHops` entries, the same way, so that a huge
/// header costs no more than a short one.
///
/// Host and scheme come from the element the nearest proxy added (the rightmost element of the last field
/// line), only when the peer is trusted, and only when valid: a scheme of `http` or `https`, a host of
/// `host[:port]` characters. Otherwise `Host` (or the HTTP/2 authority) and `http` stand.
struct RequestOrigin: Sendable {
    /// The host the request was for, as in a `Host` header (`go.example.com`, `localhost:8080`), without a final dot
    /// (`go.example.com.` names the same host, and browsers send it as typed).
    var host: String
    /// `https` or `http`.
    var scheme: String
    /// The client's IP address as text, when known.
    var clientAddress: String?
    /// Whether the request came through a trusted proxy, whose headers (the forwarded ones, the country) are believed.
    var viaTrustedProxy = false

    static let hostField = HTTPField.Name("Host")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let realIP = HTTPField.Name("X-Real-IP")!

    /// How many header entries the walk reads at most; real chains have a few.
    static let maximumHops = 32

    /// What a request's origin is before `RequestObservingMiddleware` has read it, and for the routes that need
    /// none (`/healthz`, `/metrics`).
    static let unknown = RequestOrigin(host: "", scheme: "http", clientAddress: nil)

    private init(host: String, scheme: String, clientAddress: String?) {
        self.host = host
        self.scheme = scheme
        self.clientAddress = clientAddress
    }

    init(request: Request, remoteAddress: SocketAddress?, policy: ForwardedHeaderPolicy) {
        self.init(headers: request.headers, authority: request.head.authority, remoteAddress: remoteAddress, policy: policy)
    }

    init(headers: HTTPFields, authority: String?, remoteAddress: SocketAddress?, policy: ForwardedHeaderPolicy) {
        // HTTP/1 moves the Host line into the authority (`RequestHeadCheck` has refused a second one, and put an
        // absolute-form target's authority there). A Host field remains only where a test client sends one beside
        // its fixed authority: it names the host.
        host = Self.withoutFinalDot(headers[Self.hostField] ?? authority ?? "")
        scheme = "http"
        guard case .trusting(let proxies, let kind) = policy else {
            clientAddress = remoteAddress?.ipAddress
            return
        }
        let peer = remoteAddress.flatMap(Self.address(of:))
        // A peer without an IP address is a connection already closed (or the in-memory test client).
        guard peer.map(proxies.contains) ?? proxies.trustsPeerWithoutAddress else {
            // The peer is the client; nobody vouches for what it sends.
            clientAddress = peer?.description ?? remoteAddress?.ipAddress
            return
        }
        viaTrustedProxy = true
        clientAddress = Self.client(headers: headers, kind: kind, proxies: proxies, peer: peer)?.description
        readHostAndScheme(headers: headers, kind: kind)
    }

    // MARK: - The client's address

    /// The chain's rightmost address that is not a trusted proxy, walking from `peer` (already trusted) leftwards;
    /// see the type's comment for garbage and long chains.
    static func client(headers: HTTPFields, kind: ForwardedHeaderKind, proxies: TrustedProxies, peer: IPAddress?) -> IPAddress? {
        var client = peer
        var hops = 0
        /// Takes one entry (nil when it is not an address); whether to go on leftwards.
        func step(_ entry: IPAddress?) -> Bool {
            guard let entry else { return false }
            client = entry
            return proxies.contains(entry)
        }
        func visit(_ element: Substring, _ parse: (Substring) -> IPAddress?) -> Bool {
            hops += 1
            guard hops <= maximumHops else { return false }
            let element = trimmingWhitespace(element)
            // Empty list elements are allowed by HTTP's list syntax and carry nothing.
            if element.isEmpty { return true }
            return step(parse(element))
        }
        switch kind {
        case .xForwardedFor:
            forEachElementFromRight(of: forwardedFor, in: headers, quoted: false) { element in
                visit(element) { node($0, obfuscatedPortAllowed: false) }
            }
        case .forwarded:
            forEachElementFromRight(of: forwarded, in: headers, quoted: true) { element in
                visit(element) { element in
                    forwardedParameters(element)?.for.flatMap { node($0, obfuscatedPortAllowed: true) }
                }
            }
        case .xRealIP:
            // One address, which the proxy sets (replacing any the client sent); a list is not an address.
            if let value = lastValue(of: realIP, in: headers) {
                _ = visit(Substring(value)) { node($0, obfuscatedPortAllowed: false) }
            }
        }
        return client
    }

    /// The peer's IP address; nil for a Unix-domain socket.
    static func address(of socketAddress: SocketAddress) -> IPAddress? {
        socketAddress.ipAddress.flatMap(IPAddress.init)
    }

    /// A node of a forwarded header: `192.0.2.7`, `192.0.2.7:5000`, `2001:db8::1`, `[2001:db8::1]`,
    /// `[2001:db8::1]:443`; with `obfuscatedPortAllowed`, `Forwarded`'s `…:_port` too. Nil for anything else
    /// (`unknown`, `_hidden`, a host name, an IPv4 address in brackets).
    static func node(_ text: Substring, obfuscatedPortAllowed: Bool) -> IPAddress? {
        let utf8 = text.utf8
        guard let first = utf8.first else { return nil }
        if first == UInt8(ascii: "[") {
            guard let close = utf8.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let inside = text[utf8.index(after: utf8.startIndex)..<close]
            guard inside.utf8.contains(UInt8(ascii: ":")) else { return nil }
            let rest = text[utf8.index(after: close)...]
            if !rest.isEmpty {
                guard rest.utf8.first == UInt8(ascii: ":"), isPort(rest.dropFirst(), obfuscatedPortAllowed: obfuscatedPortAllowed) else { return nil }
            }
            return IPAddress(String(inside))
        }
        guard let colon = utf8.firstIndex(of: UInt8(ascii: ":")) else {
            return IPAddress(String(text))  // IPv4
        }
        let afterColon = text[utf8.index(after: colon)...]
        if afterColon.utf8.contains(UInt8(ascii: ":")) {
            return IPAddress(String(text))  // IPv6, unbracketed
        }
        // One colon: IPv4 with a port.
        guard isPort(afterColon, obfuscatedPortAllowed: obfuscatedPortAllowed),
            let address = IPAddress(String(text[..<colon])), address.version == .v4
        else { return nil }
        return address
    }

    /// 0–65535 in 1–5 digits, or with `obfuscatedPortAllowed`, `_` and at least one of `A-Za-z0-9._-` (RFC 7239's
    /// obfport).
    private static func isPort(_ text: Substring, obfuscatedPortAllowed: Bool) -> Bool {
        let utf8 = text.utf8
        if obfuscatedPortAllowed, utf8.first == UInt8(ascii: "_") {
            return utf8.count > 1
                && utf8.dropFirst().allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") }
        }
        guard (1...5).contains(utf8.count), utf8.allSatisfy(isDigit) else { return false }
        return utf8.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) } <= 65535
    }

    // MARK: - Host and scheme

    /// `host[:port]` without the one dot that may end its name: the root of DNS, which every name has
    /// (`go.example.com.:8080` is `go.example.com:8080`). Any other final byte, and a bracketed address, stay as they are.
    static func withoutFinalDot(_ host: String) -> String {
        let utf8 = host.utf8
        var nameEnd = utf8.endIndex
        if let colon = utf8.lastIndex(of: UInt8(ascii: ":")), utf8.first != UInt8(ascii: "[") { nameEnd = colon }
        guard nameEnd > utf8.startIndex else { return host }
        let dot = utf8.index(before: nameEnd)
        guard utf8[dot] == UInt8(ascii: "."), dot > utf8.startIndex, utf8[utf8.index(before: dot)] != UInt8(ascii: ".") else {
            return host
        }
        return String(host[..<dot]) + host[nameEnd...]
    }

    /// Takes the host and scheme of the element the nearest (trusted) proxy added, when they are valid.
    private mutating func readHostAndScheme(headers: HTTPFields, kind: ForwardedHeaderKind) {
        let hostValue: Substring?
        let protoValue: Substring?
        switch kind {
        case .forwarded:
            let element = Self.lastValue(of: Self.forwarded, in: headers).flatMap { Self.lastElement(of: $0, quoted: true) }
            let parameters = element.flatMap { Self.forwardedParameters(Self.trimmingWhitespace($0)) }
            hostValue = parameters?.host
            protoValue = parameters?.proto
        case .xForwardedFor, .xRealIP:
            hostValue = Self.lastValue(of: Self.forwardedHost, in: headers).flatMap { Self.lastElement(of: $0, quoted: false) }
            protoValue = Self.lastValue(of: Self.forwardedProto, in: headers).flatMap { Self.lastElement(of: $0, quoted: false) }
        }
        if let value = hostValue.map(Self.trimmingWhitespace), Self.isValidHost(value) {
            host = Self.withoutFinalDot(String(value))
        }
        if let value = protoValue.map(Self.trimmingWhitespace) {
            if Self.equalsIgnoringASCIICase(value, "https") {
                scheme = "https"
            } else if Self.equalsIgnoringASCIICase(value, "http") {
                scheme = "http"
            }
        }
    }

    /// `host[:port]` with a host of letters, digits, `-`, `.` and `_`, or a bracketed IPv6 address; at most 255
    /// bytes. Anything else (spaces, `/`, `@`, quotes, a second port) could not have come from a well-behaved
    /// proxy and might mislead links built from it.
    static func isValidHost(_ text: Substring) -> Bool {
        let utf8 = text.utf8
        guard let first = utf8.first, utf8.count <= 255 else { return false }
        var name = text
        if first == UInt8(ascii: "[") {
            guard let close = utf8.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let inside = text[utf8.index(after: utf8.startIndex)..<close]
            guard !inside.isEmpty,
                inside.utf8.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            name = text[utf8.index(after: close)...]
            if name.isEmpty { return true }
            guard name.utf8.first == UInt8(ascii: ":") else { return false }
            return isPort(name.dropFirst(), obfuscatedPortAllowed: false)
        }
        if let colon = utf8.firstIndex(of: UInt8(ascii: ":")) {
            guard isPort(text[utf8.index(after: colon)...], obfuscatedPortAllowed: false) else { return false }
            name = text[..<colon]
        }
        return !name.isEmpty
            && name.utf8.allSatisfy { isAlphanumeric($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") }
    }

    // MARK: - Header syntax

    /// The value of the last field named `name`: the line the nearest proxy wrote or appended.
    static func lastValue(of name: HTTPField.Name, in headers: HTTPFields) -> String? {
        var index = headers.endIndex
        while index > headers.startIndex {
            index = headers.index(before: index)
            if headers[index].name == name { return headers[index].value }
        }
        return nil
    }

    /// Calls `visit` with each comma-separated element of the fields named `name`, all lines as one list, the
    /// rightmost first, until it returns false. With `quoted`, commas inside quoted strings separate nothing.
    static func forEachElementFromRight(
        of name: HTTPField.Name, in headers: HTTPFields, quoted: Bool, _ visit: (Substring) -> Bool
    ) {
        var index = headers.endIndex
        while index > headers.startIndex {
            index = headers.index(before: index)
            guard headers[index].name == name else { continue }
            guard forEachElementFromRight(of: headers[index].value, quoted: quoted, visit) else { return }
        }
    }

    /// The rightmost element of one field line.
    static func lastElement(of value: String, quoted: Bool) -> Substring? {
        var last: Substring?
        _ = forEachElementFromRight(of: value, quoted: quoted) { element in
            last = element
            return false
        }
        return last
    }

    /// Splits one field line at commas from the right. Scanning from the right keeps the elements a proxy
    /// appended intact whatever the client put before them: an unbalanced quote on the left cannot swallow them.
    /// Inside quotes (with `quoted`), a `"` preceded by an odd number of backslashes is escaped. Everything left
    /// of an unmatched quote is one element (which does not parse). Returns false when `visit` did.
    private static func forEachElementFromRight(of value: String, quoted: Bool, _ visit: (Substring) -> Bool) -> Bool {
        let utf8 = value.utf8
        let start = utf8.startIndex
        var end = utf8.endIndex
        var index = end
        while index > start {
            let before = utf8.index(before: index)
            let byte = utf8[before]
            if byte == UInt8(ascii: ",") {
                guard visit(value[index..<end]) else { return false }
                end = before
            } else if quoted && byte == UInt8(ascii: "\"") {
                guard !isEscaped(utf8, before), let opening = openingQuote(utf8, before) else {
                    return visit(value[start..<end])
                }
                index = opening
                continue
            }
            index = before
        }
        return visit(value[start..<end])
    }

    /// The index of the unescaped quote that opens the quoted string closed at `closing`.
    private static func openingQuote(_ utf8: String.UTF8View, _ closing: String.Index) -> String.Index? {
        var index = closing
        while index > utf8.startIndex {
            index = utf8.index(before: index)
            if utf8[index] == UInt8(ascii: "\""), !isEscaped(utf8, index) { return index }
        }
        return nil
    }

    /// Whether the byte at `index` follows an odd number of backslashes.
    private static func isEscaped(_ utf8: String.UTF8View, _ index: String.Index) -> Bool {
        var escaped = false
        var index = index
        while index > utf8.startIndex {
            index = utf8.index(before: index)
            guard utf8[index] == UInt8(ascii: "\\") else { break }
            escaped.toggle()
        }
        return escaped
    }

    /// The parameters of one `Forwarded` element that Relink reads.
    struct ForwardedParameters {
        var `for`: Substring?
        var host: Substring?
        var proto: Substring?
    }

    /// Parses `for=…;host=…;proto=…` (RFC 7239: `token=token` or `token="quoted"`, parameters once each,
    /// case-insensitive names, other parameters ignored). Nil when the element does not parse.
    static func forwardedParameters(_ element: Substring) -> ForwardedParameters? {
        var result = ForwardedParameters()
        var rest = element
        while true {
            rest = trimmingWhitespace(rest)
            guard let first = rest.utf8.first else { return result }
            if first == UInt8(ascii: ";") {
                rest = rest.dropFirst()
                continue
            }
            guard let equals = rest.utf8.firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = rest[..<equals]
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else { return nil }
            rest = rest[rest.utf8.index(after: equals)...]
            let value: Substring
            if rest.utf8.first == UInt8(ascii: "\"") {
                guard let quoted = quotedString(rest) else { return nil }
                value = quoted.content
                rest = quoted.after
            } else {
                let end = rest.utf8.firstIndex { $0 == UInt8(ascii: ";") || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") } ?? rest.endIndex
                value = rest[..<end]
                guard !value.isEmpty, value.utf8.allSatisfy(isUnquotedValueCharacter) else { return nil }
                rest = rest[end...]
            }
            rest = trimmingWhitespace(rest)
            guard rest.isEmpty || rest.utf8.first == UInt8(ascii: ";") else { return nil }
            // A parameter given twice in one element makes it ambiguous (RFC 7239 forbids it).
            if equalsIgnoringASCIICase(name, "for") {
                guard result.for == nil else { return nil }
                result.for = value
            } else if equalsIgnoringASCIICase(name, "host") {
                guard result.host == nil else { return nil }
                result.host = value
            } else if equalsIgnoringASCIICase(name, "proto") {
                guard result.proto == nil else { return nil }
                result.proto = value
            }
        }
    }

    /// The unescaped content of the quoted string `text` starts with, and what follows it.
    private static func quotedString(_ text: Substring) -> (content: Substring, after: Substring)? {
        let utf8 = text.utf8
        var index = utf8.index(after: utf8.startIndex)
        var hasEscapes = false
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "\\") {
                hasEscapes = true
                index = utf8.index(after: index)
                guard index < utf8.endIndex else { return nil }
            } else if byte == UInt8(ascii: "\"") {
                let content = text[utf8.index(after: utf8.startIndex)..<index]
                let after = text[utf8.index(after: index)...]
                guard hasEscapes else { return (content, after) }
                var unescaped: [UInt8] = []
                var escaping = false
                for byte in content.utf8 {
                    if !escaping && byte == UInt8(ascii: "\\") {
                        escaping = true
                        continue
                    }
                    escaping = false
                    unescaped.append(byte)
                }
                return (Substring(String(decoding: unescaped, as: UTF8.self)), after)
            }
            index = utf8.index(after: index)
        }
        return nil
    }

    // MARK: - Bytes

    static func trimmingWhitespace(_ text: Substring) -> Substring {
        var text = text
        while let byte = text.utf8.first, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { text = text.dropFirst() }
        while let byte = text.utf8.last, byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") { text = text.dropLast() }
        return text
    }

    /// Whether `text` is `lowercase` (ASCII letters in any case).
    private static func equalsIgnoringASCIICase(_ text: Substring, _ lowercase: StaticString) -> Bool {
        guard text.utf8.count == lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(text.utf8, expected).allSatisfy { byte, expected in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == expected
            }
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// RFC 9110's tchar.
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        isAlphanumeric(byte) || "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }

    /// A token, leniently: also `:`, `[`, `]` and `/`, which proxies write unquoted in `for=` and `host=` although
    /// RFC 7239 asks for quotes.
    private static func isUnquotedValueCharacter(_ byte: UInt8) -> Bool {
        isTokenCharacter(byte) || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            || byte == UInt8(ascii: "/")
    }
}
