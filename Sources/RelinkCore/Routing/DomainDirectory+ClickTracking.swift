extension DomainDirectory {
    /// The project and tracking settings of an email service's tracking domain, for a request with this `Host`; a
    /// port the configuration does not name is ignored, as for link domains.
    /// - Parameter host: the `Host` header value.
    /// - Returns: nil when the host is not a tracking domain.
    public func clickTracking(host: String) -> (project: Project, tracking: ClickTrackingHost)? {
        guard !clickTrackingByHost.isEmpty else { return nil }
        let host = Self.asciiLowercased(host)
        if let found = clickTrackingByHost[host] { return found }
        if let colon = host.lastIndex(of: ":"), !host.hasSuffix("]") { return clickTrackingByHost[String(host[..<colon])] }
        return nil
    }
}
