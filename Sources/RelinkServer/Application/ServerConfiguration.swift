import Logging
import RelinkCore
import RelinkStore

/// Everything `buildApplication` needs: where to listen, what to serve, and how far to trust the network.
public struct ServerConfiguration: Sendable {
    public var host: String
    /// 0 picks a free port (tests).
    public var port: Int
    public var relink: RelinkConfiguration
    /// Which forwarded headers to read, and from which proxies: `.none` unless behind a proxy that sets them.
    public var forwardedHeaders: ForwardedHeaderPolicy
    public var logLevel: Logger.Level
    /// How long a connection may sit without a request before it is closed, so idle connections cannot pile up.
    public var idleTimeout: Duration
    /// Where links, keys and events are kept; the application runs it as its first service and closes it when it
    /// shuts down.
    public var store: any RelinkStore
    /// How often buffered click events are written.
    public var eventFlushInterval: Duration
    /// The secrets for hashing client addresses (never kept in the database); nil makes a random one that lives
    /// as long as the process, for tests and throwaway servers.
    public var addressHashSecrets: AddressHashSecrets?
    /// Called with the port once the server listens (tests that pick port 0 learn it here).
    public var onServerRunning: (@Sendable (Int) async -> Void)?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, relink: RelinkConfiguration, forwardedHeaders: ForwardedHeaderPolicy = .none,
        logLevel: Logger.Level = .info, idleTimeout: Duration = .seconds(60), store: any RelinkStore,
        eventFlushInterval: Duration = .seconds(1),
        addressHashSecrets: AddressHashSecrets? = nil, onServerRunning: (@Sendable (Int) async -> Void)? = nil
    ) {
        self.onServerRunning = onServerRunning
        self.host = host
        self.port = port
        self.relink = relink
        self.forwardedHeaders = forwardedHeaders
        self.logLevel = logLevel
        self.idleTimeout = idleTimeout
        self.store = store
        self.eventFlushInterval = eventFlushInterval
        self.addressHashSecrets = addressHashSecrets
    }
}
