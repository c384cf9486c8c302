import RelinkCore

/// Which forwarded headers a server believes, and from whom: see `RequestOrigin` for how they are read.
///
/// Without trust (``none``) the socket's peer is the client and `Host` names the host. With trust, forwarded
/// headers are read only when the peer is one of the trusted proxies, only the one kind of header the operator
/// names, and the client is the rightmost address of the chain that is not a trusted proxy.
public enum ForwardedHeaderPolicy: Sendable, Equatable {
    /// Forwarded headers are ignored: the peer is the client.
    case none
    /// Requests whose peer is one of `proxies` are read through `header`.
    case trusting(TrustedProxies, header: ForwardedHeaderKind)

    /// Trust with the default proxies (loopback and private networks) and `X-Forwarded-For`.
    public static let defaultTrusting = ForwardedHeaderPolicy.trusting(TrustedProxies(), header: .xForwardedFor)
}

/// The header a trusted proxy reports the client with.
public enum ForwardedHeaderKind: String, Sendable, CaseIterable, CustomStringConvertible {
    /// RFC 7239 `Forwarded` (`for=`, `host=`, `proto=`).
    case forwarded
    /// `X-Forwarded-For` for the address, `X-Forwarded-Host` and `X-Forwarded-Proto` for the host and scheme.
    case xForwardedFor = "x-forwarded-for"
    /// `X-Real-IP` (one address, set by the proxy) for the address, `X-Forwarded-Host` and `X-Forwarded-Proto`
    /// for the host and scheme.
    case xRealIP = "x-real-ip"

    /// The name as the command line takes it: `forwarded`, `x-forwarded-for` or `x-real-ip`.
    public var description: String { rawValue }
}

/// The networks of the proxies whose forwarded headers count, parsed once at startup.
public struct TrustedProxies: Sendable, Equatable {
    /// The networks; an address in any of them is a trusted proxy.
    public var networks: [IPNetwork]
    /// Whether a peer without an IP address counts as a trusted proxy. Relink listens on TCP, where the peer is
    /// unknown only for a connection that has already closed (whose sender is unknown too), and for the in-memory
    /// client of `app.test(.router)`. Only tests should set it.
    public var trustsPeerWithoutAddress: Bool

    /// - Parameters:
    ///   - networks: by default the loopback and private networks (`IPNetwork.loopbackAndPrivate`), the
    ///     addresses of a proxy on the same host or network.
    ///   - trustsPeerWithoutAddress: see ``trustsPeerWithoutAddress``; false outside tests.
    public init(_ networks: [IPNetwork] = IPNetwork.loopbackAndPrivate, trustsPeerWithoutAddress: Bool = false) {
        self.networks = networks
        self.trustsPeerWithoutAddress = trustsPeerWithoutAddress
    }

    /// Whether `address` is in one of the networks.
    public func contains(_ address: IPAddress) -> Bool {
        for network in networks where network.contains(address) { return true }
        return false
    }
}
