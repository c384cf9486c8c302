extension AbsoluteURI {
    /// Whether this URI falls under `prefix`: same host, and its path is the prefix's path or below it.
    /// - Parameter prefix: a domain URI prefix.
    /// - Returns: true when this URI has its scheme and host and a path at or below its path.
    public func isUnder(_ prefix: DomainURIPrefix) -> Bool {
        // `host.` is the same host, and an explicit default port the same port.
        guard isHTTP, var host else { return false }
        if host.hasSuffix(".") { host.removeLast() }
        let defaultPort = scheme.lowercased() == "https" ? 443 : 80
        let prefixDefault = prefix.scheme.lowercased() == "https" ? 443 : 80
        guard host == prefix.host, (port ?? defaultPort) == (prefix.port ?? prefixDefault) else { return false }
        let path = string[pathRange]
        return prefix.path.isEmpty || path == prefix.path || path.hasPrefix(prefix.path + "/")
    }
}
