/// Which project a request belongs to, by its host and path: the longest matching domain URI prefix wins.
public struct DomainDirectory: Sendable {
    public struct Match: Sendable {
        public var project: Project
        public var prefix: DomainURIPrefix
        /// The request path below the prefix (`/abc` for `/links/abc` under `https://example.com/links`).
        public var relativePath: Substring
    }

    /// For each `host[:port]`, its prefixes with the longest path first.
    private let prefixesByHost: [String: [(prefix: DomainURIPrefix, project: Project)]]
    /// Email services' tracking domains Relink hosts, by `host[:port]` (docs/email.md).
    let clickTrackingByHost: [String: (project: Project, tracking: ClickTrackingHost)]

    /// - Parameter configuration: routes.json, loaded.
    public init(_ configuration: RelinkConfiguration) {
        var byHost: [String: [(DomainURIPrefix, Project)]] = [:]
        for project in configuration.projects {
            for domain in project.domains {
                byHost[domain.hostAndPort, default: []].append((domain, project))
            }
        }
        prefixesByHost = byHost.mapValues { $0.sorted { $0.0.path.count > $1.0.path.count } }
        var tracking: [String: (Project, ClickTrackingHost)] = [:]
        for project in configuration.projects {
            for host in project.clickTracking { tracking[host.host] = (project, host) }
        }
        clickTrackingByHost = tracking
    }

    /// The project for a request with this `Host` header value and path. A port in the host that no domain
    /// names is ignored, so `localhost:8080` finds a `http://localhost` domain.
    /// - Parameters:
    ///   - host: the `Host` header value.
    ///   - path: the request path.
    /// - Returns: the project, the prefix and the path below it; nil when no project serves them.
    public func match(host: String, path: Substring) -> Match? {
        // ASCII only: Unicode case mapping would take `go.pictlinK.com` (U+212A KELVIN SIGN) for `go.pictlink.com`.
        let host = Self.asciiLowercased(host)
        if let match = match(hostKey: host, path: path) { return match }
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") {
            return match(hostKey: String(host[..<colon]), path: path)
        }
        return nil
    }

    private func match(hostKey: String, path: Substring) -> Match? {
        guard let candidates = prefixesByHost[hostKey] else { return nil }
        for (prefix, project) in candidates {
            if let relative = prefix.relativePath(of: path) {
                return Match(project: project, prefix: prefix, relativePath: relative)
            }
        }
        return nil
    }

    /// The project, prefix and code of a short link such as `https://go.pictlink.com/Ab3x`.
    /// - Parameter url: a URL, possibly with `?d=1`.
    /// - Returns: nil when it is not a short link on a Relink domain.
    public func shortLink(_ url: String) -> (project: Project, prefix: DomainURIPrefix, code: ShortCode)? {
        guard let uri = AbsoluteURI(String(url.trimmingASCIIWhitespace())), uri.isHTTP, let host = uri.host,
            uri.query == nil || uri.query == APIPath.debugQuery
        else { return nil }
        let path = uri.path
        // The scheme's own port (`https://go.pictlink.com:443/x`) is the link without it, as browsers ask for it.
        let port = uri.port == (uri.scheme == "https" ? 443 : 80) ? nil : uri.port
        guard let match = match(hostKey: port.map { "\(host):\($0)" } ?? host, path: Substring(path)),
            match.relativePath.hasPrefix("/"), let code = ShortCode(match.relativePath.dropFirst())
        else { return nil }
        return (match.project, match.prefix, code)
    }

    /// The project that owns exactly this domain URI prefix.
    /// - Parameter prefix: a domain URI prefix.
    /// - Returns: the project, or nil.
    public func project(owning prefix: DomainURIPrefix) -> Project? {
        prefixesByHost[prefix.hostAndPort]?.first { $0.prefix == prefix }?.project
    }

    /// Whether any project serves this host, whatever the path.
    /// - Parameter host: a `Host` header value.
    /// - Returns: true when a project has a domain on it.
    public func servesHost(_ host: String) -> Bool {
        let host = Self.asciiLowercased(host)
        if prefixesByHost[host] != nil { return true }
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { return prefixesByHost[String(host[..<colon])] != nil }
        return false
    }

    /// `text` with ASCII letters lowercased and every other byte as it is.
    /// - Parameter text: a host, as a request or a configuration names it.
    /// - Returns: the text to look the host up by.
    public static func asciiLowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) else { return text }
        return String(decoding: text.utf8.map { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}
