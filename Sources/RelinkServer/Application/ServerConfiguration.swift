import Logging
import RelinkCore

/// Everything `buildApplication` needs: where to listen, what to serve, and how far to trust the network.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int
    public var relink: RelinkConfiguration
    /// Read `Forwarded` / `X-Forwarded-*` headers: only behind a proxy that sets them.
    public var trustForwardedHeaders: Bool
    public var logLevel: Logger.Level

    public init(
        host: String = "127.0.0.1", port: Int = 8080, relink: RelinkConfiguration, trustForwardedHeaders: Bool = false,
        logLevel: Logger.Level = .info
    ) {
        self.host = host
        self.port = port
        self.relink = relink
        self.trustForwardedHeaders = trustForwardedHeaders
        self.logLevel = logLevel
    }
}
