/// An email service's click-tracking domain that Relink hosts for a project (`clickTracking` in routes.json): the
/// service rewrites every link of a message to `https://<host>/<tracking path>?…`. On that host Relink serves
/// association files that give the project's apps the tracking paths (so a tap opens the app), and passes every
/// other request to the service's `upstream`, fixed here and never taken from a request.
public struct ClickTrackingHost: Hashable, Sendable {
    /// The tracking domain, lowercased, as in a `Host` header (`click.example.com`, or `host:port`).
    public var host: String
    /// Where the service answers: `https://host[:port]`, no path, query or user information.
    public var upstream: DomainURIPrefix
    /// The tracking paths, as patterns of `apple-app-site-association` (`*` any run of characters, `?` one): the
    /// association files list these, and only these open the app.
    public var paths: [String]
    /// The `Host` the upstream is asked with: the tracking domain itself (as a CDN in front of the service sends it,
    /// which most services need to find the account), or the upstream's own host.
    public var sendsTrackingHost: Bool

    public init(host: String, upstream: DomainURIPrefix, paths: [String], sendsTrackingHost: Bool = true) {
        self.host = host
        self.upstream = upstream
        self.paths = paths
        self.sendsTrackingHost = sendsTrackingHost
    }

    /// Why `path` cannot be a tracking path (nil when it can): it starts with `/`, holds only what a URL path may
    /// (letters, digits, `-._~/!$&'()+,;=:@%` and the wildcards `*` and `?`), at most 200 bytes.
    public static func problem(path: String) -> String? {
        guard path.hasPrefix("/") else { return "'\(path.prefix(100))' must start with /" }
        guard path.utf8.count <= 200 else { return "a tracking path has at most 200 bytes" }
        let allowed = path.unicodeScalars.allSatisfy {
            $0.isASCIILetter || $0.isASCIIDigit || "-._~/!$&'()+,;=:@%*?".unicodeScalars.contains($0)
        }
        guard allowed else {
            return "'\(path.prefix(100))' has characters a URL path cannot hold (letters, digits, -._~/!$&'()+,;=:@% and the wildcards * and ?)"
        }
        return nil
    }

    /// Whether `path` (a request's path, without its query) is one of the tracking paths: the association files'
    /// matching, `*` any run and `?` any one character, case-sensitive.
    public func isTrackingPath(_ path: Substring) -> Bool {
        paths.contains { Self.matches(pattern: Array($0.utf8)[...], path: Array(path.utf8)[...]) }
    }

    static func matches(pattern: ArraySlice<UInt8>, path: ArraySlice<UInt8>) -> Bool {
        // Backtracking over the last `*` only: linear in practice, and patterns are short and few.
        var p = pattern.startIndex
        var s = path.startIndex
        var star: (pattern: Int, path: Int)?
        while s < path.endIndex {
            if p < pattern.endIndex, pattern[p] == UInt8(ascii: "?") || pattern[p] == path[s] {
                p += 1
                s += 1
            } else if p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") {
                star = (p, s)
                p += 1
            } else if let last = star {
                p = last.pattern + 1
                s = last.path + 1
                star = (last.pattern, last.path + 1)
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == UInt8(ascii: "*") { p += 1 }
        return p == pattern.endIndex
    }
}
