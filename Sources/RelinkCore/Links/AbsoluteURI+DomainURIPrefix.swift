import Foundation

extension AbsoluteURI {
    /// Whether a browser sent to this URI lands under `prefix`: the same host, the same port, and a path at or below
    /// the prefix's once resolved the way browsers resolve it (WHATWG URL). A redirect there would come back to Relink,
    /// so it is judged as a browser would read it, not as written: `/x/../links/a`, `/x/%2e%2e/links/a` and
    /// `/x\..\links/a` are all `/links/a`.
    /// - Parameter prefix: a domain URI prefix.
    /// - Returns: true when a click on this URI would reach a link under `prefix`.
    public func isUnder(_ prefix: DomainURIPrefix) -> Bool {
        guard isHTTP, let host, Self.browserHost(host) == Self.browserHost(prefix.host) else { return false }
        // http and https reach the same server (a proxy answers one by redirecting to the other), and an explicit
        // default port is no port.
        func nonDefault(_ port: Int?, scheme: String) -> Int? { port == (scheme.lowercased() == "https" ? 443 : 80) ? nil : port }
        guard nonDefault(port, scheme: scheme) == nonDefault(prefix.port, scheme: prefix.scheme) else { return false }
        let path = Self.browserPath(string[pathRange])
        return prefix.path.isEmpty || path == prefix.path || path.hasPrefix(prefix.path + "/")
    }

    /// A host as a browser looks it up: without a final dot, and a non-ASCII one mapped as IDNA maps it before
    /// the lookup (compatibility forms such as fullwidth letters or U+212A KELVIN SIGN, ideographic full stops as
    /// dots, lowercase), so `ｇｏ.pictlink.com` is `go.pictlink.com`.
    static func browserHost(_ host: String) -> String {
        var mapped = host
        if host.utf8.contains(where: { $0 > 0x7F }) {
            mapped = String(
                String.UnicodeScalarView(
                    host.precomposedStringWithCompatibilityMapping.unicodeScalars.map { $0 == "\u{3002}" || $0 == "\u{FF61}" ? "." : $0 })
            ).lowercased()
        }
        if mapped.utf8.last == UInt8(ascii: ".") { mapped.removeLast() }
        return mapped
    }

    /// A path with its dot segments resolved as browsers resolve an http(s) URL's: `\` separates segments like `/`,
    /// and `%2e` (either case) is a dot. Percent-escapes are otherwise kept as written, as browsers send them.
    static func browserPath(_ path: Substring) -> String {
        var segments: [Substring] = []
        var segmentStart = path.startIndex
        var index = path.startIndex
        // The first separator starts the path (an http(s) path is never relative here).
        if index < path.endIndex, path.utf8[index] == UInt8(ascii: "/") || path.utf8[index] == UInt8(ascii: "\\") {
            index = path.utf8.index(after: index)
            segmentStart = index
        }
        while true {
            let atEnd = index == path.endIndex
            if atEnd || path.utf8[index] == UInt8(ascii: "/") || path.utf8[index] == UInt8(ascii: "\\") {
                let segment = path[segmentStart..<index]
                switch dots(in: segment) {
                case 2:
                    if !segments.isEmpty { segments.removeLast() }
                    if atEnd { segments.append("") }
                case 1:
                    if atEnd { segments.append("") }
                default:
                    segments.append(segment)
                }
                if atEnd { break }
                index = path.utf8.index(after: index)
                segmentStart = index
            } else {
                index = path.utf8.index(after: index)
            }
        }
        return "/" + segments.joined(separator: "/")
    }

    /// 1 for a `.` segment, 2 for a `..` one (each dot may be written `%2e` or `%2E`), 0 for any other segment.
    private static func dots(in segment: Substring) -> Int {
        var count = 0
        var bytes = segment.utf8[...]
        while let first = bytes.first {
            if first == UInt8(ascii: ".") {
                bytes = bytes.dropFirst()
            } else if first == UInt8(ascii: "%"), bytes.count >= 3,
                bytes.dropFirst().first == UInt8(ascii: "2"), bytes.dropFirst(2).first.map({ $0 | 0x20 }) == UInt8(ascii: "e")
            {
                bytes = bytes.dropFirst(3)
            } else {
                return 0
            }
            count += 1
            if count > 2 { return 0 }
        }
        return count
    }
}
