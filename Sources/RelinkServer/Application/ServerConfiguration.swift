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
    /// The logger to use instead of one from `LoggingSystem` (tests read what is logged).
    public var logger: Logger?
    /// How long a connection may sit without a request before it is closed, so idle connections cannot pile up.
    public var idleTimeout: Duration
    /// How long a client may take to send a request's head (from the connection's start, or the end of the previous
    /// response), so a client trickling header bytes cannot hold a connection.
    public var headerTimeout: Duration
    /// How long a client may take to send a request's body once its head has arrived.
    public var bodyTimeout: Duration
    /// How long a response may wait for a client that does not read it.
    public var sendTimeout: Duration
    /// The most connections open at once, over the main and metrics listeners.
    public var maxConnections: Int
    /// Per-client limits count an IPv6 client by this prefix of its address (64: its /64).
    public var ipv6PrefixLength: Int
    /// Where `/metrics` is served; `.disabled` unless asked for.
    public var metrics: MetricsEndpoint
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
    /// Called with the metrics listener's port once it listens.
    public var onMetricsServerRunning: (@Sendable (Int) async -> Void)?
    /// Where destination pages may be fetched from for link previews (public addresses, and the networks an
    /// operator allows with `--fetch-allow-network`).
    public var fetchPolicy = OutboundAddressPolicy()
    /// How fetches find addresses (the system resolver; tests name their own hosts).
    public var hostResolver: any HostResolver = SystemHostResolver()
    /// How long an email service behind a tracking domain may take to answer a passed-on click (a 504 after it).
    public var clickTrackingTimeout: Duration = .seconds(5)
    /// The header a trusted proxy puts the client's country in (`CF-IPCountry`), for link rules; nil: unknown.
    public var countryHeader: String?
    /// A MaxMind-format country database, for link rules when no trusted header gives the country.
    public var countryDatabase: CountryDatabase?
    /// How often webhook events are written and due deliveries sent.
    public var webhookInterval: Duration = .seconds(1)
    /// How long a webhook receiver may take to answer.
    public var webhookTimeout: Duration = .seconds(10)
    /// A leased delivery's time before another sender may take it (its sender crashed).
    public var webhookLease: Duration = .seconds(60)
    /// The first retry's delay (then doubling, up to an hour, for a day).
    public var webhookRetryBase: Duration = .seconds(30)
    /// The time the rate limits refill by (nil: a monotonic clock). Tests hold it still, so that what a burst is
    /// allowed does not depend on how fast a busy machine serves it.
    public var rateLimitElapsed: (@Sendable () -> Duration)?
    /// How many clicks one client network may leave for deferred linking in each project (`--kept-clicks-per-network`);
    /// past it a click is redirected and counted, not kept.
    public var keptClicksPerNetwork = ClientLimiter.defaultKeptClicks
    /// The most short links kept in memory for clicks (`--link-cache`); past it, the oldest give way.
    public var linkCacheCapacity = LinkCache.defaultCapacity
    /// Where the web console is served.
    public var console: ConsoleEndpoint = .mainPort
    /// Called with the console listener's port once it listens (`ConsoleEndpoint.port`).
    public var onConsoleServerRunning: (@Sendable (Int) async -> Void)?
    /// How often stored previews are looked at for a refresh.
    public var previewRefreshInterval: Duration = .seconds(600)
    /// Local development only (`--dev-host`): this project's links also answer on `localhost`, `127.0.0.1` and
    /// `[::1]`, which no project serves, so that a browser on the developer's machine can open them.
    public var developmentProject: String?
    /// Whether clicks whose link is in memory are answered by the lean path (`LeanClickHandler`) rather than the
    /// router (`--no-lean-clicks` turns it off: the answers are the same, only slower).
    public var leanClicks = true
    /// Called for each click the lean path answered (tests).
    public var onLeanClick: (@Sendable () -> Void)?
    /// How long a graceful stop may take before its last writes are given up (`relink serve --shutdown-timeout`).
    public var shutdownDeadline = ShutdownDeadline()
    /// Where the stop's last log line reads what the store did not take (`relink serve` logs it).
    public var backlog: StoreBacklog?
    /// Makes the ids of kept clicks (tests that compare two servers' answers); nil: random, time-ordered ids.
    public var clickIDs: (@Sendable () -> String)?

    public init(
        host: String = "127.0.0.1", port: Int = 8080, relink: RelinkConfiguration, forwardedHeaders: ForwardedHeaderPolicy = .none,
        logLevel: Logger.Level = .info, idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10),
        bodyTimeout: Duration = .seconds(10), sendTimeout: Duration = .seconds(10), maxConnections: Int = 10_000,
        ipv6PrefixLength: Int = 64, metrics: MetricsEndpoint = .disabled,
        store: any RelinkStore,
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
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.sendTimeout = sendTimeout
        self.maxConnections = maxConnections
        self.ipv6PrefixLength = ipv6PrefixLength
        self.metrics = metrics
        self.store = store
        self.eventFlushInterval = eventFlushInterval
        self.addressHashSecrets = addressHashSecrets
    }
}
