/// A project's open-redirect protection: which destinations its links may send a click to.
public struct Allowlist: Hashable, Sendable {
    /// Hosts every project may send clicks to when it lists no patterns: the stores Relink redirects to.
    public static let storeHosts: Set<String> = ["apps.apple.com", "itunes.apple.com", "play.google.com"]

    public var patterns: [URLPattern]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(patterns: [URLPattern] = []) {
        self.patterns = patterns
    }

    /// Whether a click may be sent to `destination`: http(s) only, matching a pattern in full, or, for a
    /// project without patterns, on one of its own domains or a store host.
    /// - Parameters:
    ///   - destination: the URL a click would be sent to.
    ///   - projectDomains: the project's domain URI prefixes, allowed when there are no patterns.
    /// - Returns: true when the click may go there.
    public func allows(_ destination: String, projectDomains: [DomainURIPrefix]) -> Bool {
        guard let uri = AbsoluteURI(destination) else { return false }
        return allows(uri, projectDomains: projectDomains)
    }

    /// `allows(_:projectDomains:)` for a URI already parsed.
    /// - Parameters:
    ///   - uri: the parsed destination.
    ///   - projectDomains: the project's domain URI prefixes.
    /// - Returns: true when the click may go there.
    public func allows(_ uri: AbsoluteURI, projectDomains: [DomainURIPrefix]) -> Bool {
        guard uri.isHTTP, let host = uri.host else { return false }
        let destination = uri.string
        if patterns.isEmpty {
            return Self.storeHosts.contains(host) || projectDomains.contains { $0.host == host }
        }
        return patterns.contains { $0.matches(destination) }
    }
}
