import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Builds the Relink service: the same application `relink serve` runs and the tests drive.
public func buildApplication(configuration: ServerConfiguration) throws -> some ApplicationProtocol {
    let logger = {
        var logger = configuration.logger ?? Logger(label: "relink")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    let parts = try ApplicationParts(configuration: configuration, logger: logger)
    let summary = configuration.relink.projects.map { project in
        "\(project.id) (\(project.domains.map(\.description).joined(separator: ", ")))"
    }.joined(separator: "; ")
    let http1 = parts.http1
    let lean = parts.lean
    return Application(
        router: parts.router,
        server: HTTPServerBuilder { responder in RelinkHTTP1Channel(responder: responder, configuration: http1, lean: lean) },
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Relink"),
        // Listed after the server, so graceful shutdown stops the server first and then writes the last events.
        services: parts.services,
        onServerRunning: { channel in
            if let port = channel.localAddress?.port { await configuration.onServerRunning?(port) }
            // An IPv6 address goes in brackets, or the URL is not one.
            let address = channel.localAddress.map { local in
                let host = local.ipAddress ?? configuration.host
                return "\(host.contains(":") ? "[\(host)]" : host):\(local.port ?? configuration.port)"
            }
            logger.info(
                "Relink listening on http://\(address ?? "\(configuration.host):\(configuration.port)"); \(configuration.store.description); serving \(summary)"
            )
            for project in configuration.relink.projects where project.deferred.debug {
                logger.warning(
                    "project \(project.id) has deferred.debug on: claims answer with the candidate clicks from the claiming network; turn it off outside testing"
                )
            }
        },
        logger: logger
    )
}

/// The router and the services behind it, built once per application.
struct ApplicationParts {
    let router: Router<RelinkRequestContext>
    let store: StoreService
    let recorder: EventRecorder
    let deferredRecorder: DeferredClickRecorder
    let linkChanges: LinkChangeWatcher?
    let previews: PreviewService
    let webhooks: WebhookService
    let metrics: RelinkMetrics
    /// The separate `/metrics` listener, when `--metrics-port` asks for one.
    let metricsServer: (any Service)?
    /// The console's own listener, when `--console-port` asks for one.
    let consoleServer: (any Service)?
    /// Both listeners' HTTP/1 settings: the idle, header, body and send timeouts and the connection limit.
    let http1: HTTP1Channel.Configuration
    /// The main listener's lean path for clicks (nil: `--no-lean-clicks`).
    let lean: LeanClickResponder?
    /// Gives back the heap a flood of connections left free.
    let heapTrim: HeapTrimService

    /// The `Server` header of every answer.
    static let serverName = "Relink"

    /// Started in this order and stopped in the reverse: the store outlives the recorders' last writes.
    var services: [any Service] {
        [store, recorder, deferredRecorder, previews, webhooks, heapTrim] + (linkChanges.map { [$0] } ?? []) + (metricsServer.map { [$0] } ?? [])
            + (consoleServer.map { [$0] } ?? [])
    }

    init(configuration: ServerConfiguration, logger: Logger) throws {
        let relink = configuration.relink
        let store = configuration.store
        let router = Router(context: RelinkRequestContext.self, options: [.autoGenerateHeadEndpoints])
        let pages = try PageRenderer()
        let cache = LinkCache(capacity: configuration.linkCacheCapacity)
        let metrics = RelinkMetrics()
        let outages = StoreOutageLog(logger: logger, metrics: metrics)
        let recorder = EventRecorder(
            store: store, interval: configuration.eventFlushInterval, logger: logger, metrics: metrics, outages: outages,
            deadline: configuration.shutdownDeadline)
        // One limiter for every endpoint anyone may call, each with its own budget per client network.
        let clientLimiter = ClientLimiter(
            ipv6PrefixLength: configuration.ipv6PrefixLength, keptClicks: configuration.keptClicksPerNetwork, metrics: metrics,
            elapsed: configuration.rateLimitElapsed)
        let authenticator = APIKeyAuthenticator(store: store, configuration: relink, limiter: clientLimiter)
        // Every path from a URL to its link goes through this one resolver.
        let resolver = LinkResolver(configuration: relink, store: store, cache: cache, developmentProject: configuration.developmentProject)
        if let project = configuration.developmentProject {
            logger.notice("Development: \(project)'s links also answer on localhost, 127.0.0.1 and [::1] (--dev-host).")
        }
        let previews = PreviewService(
            store: store, configuration: relink, fetcher: SafeFetcher(policy: configuration.fetchPolicy, resolver: configuration.hostResolver),
            cache: cache, refreshInterval: configuration.previewRefreshInterval, logger: logger)
        var webhookFetcher = SafeFetcher(policy: configuration.fetchPolicy, resolver: configuration.hostResolver)
        webhookFetcher.timeout = configuration.webhookTimeout
        let webhooks = WebhookService(
            store: store, fetcher: webhookFetcher, interval: configuration.webhookInterval, lease: configuration.webhookLease,
            retryBase: configuration.webhookRetryBase, logger: logger, outages: outages)
        let knowsCountries = configuration.countryHeader != nil || configuration.countryDatabase != nil
        let service = ShortLinkService(resolver: resolver, previews: previews, webhooks: webhooks, knowsCountries: knowsCountries)
        if !knowsCountries {
            let projects = relink.projects.filter(\.rules.usesCountries).map(\.id)
            if !projects.isEmpty {
                logger.warning(
                    "Country rules never match: the default rules of \(projects.joined(separator: ", ")) ask for the click's country, and this server has no country source (--country-header or --geoip)."
                )
            }
            Task { [store, logger] in
                guard let count = try? await store.countLinksWithCountryRules(), count > 0 else { return }
                logger.warning(
                    "Country rules never match: \(count) stored link(s) have rules that ask for the click's country, and this server has no country source (--country-header or --geoip)."
                )
            }
        }
        let mintLimiter = RateLimiter<Int64>(elapsed: configuration.rateLimitElapsed)
        let secrets = configuration.addressHashSecrets ?? .ephemeral()
        // Pending clicks are written ten times a second (or as often as events, when that is more): one write of a
        // second's clicks takes a core long enough to hold back the clicks arriving meanwhile (their p99).
        let deferredRecorder = DeferredClickRecorder(
            store: store, configuration: relink, interval: min(configuration.eventFlushInterval, .milliseconds(100)), logger: logger,
            metrics: metrics, outages: outages, deadline: configuration.shutdownDeadline)
        configuration.backlog?.watch(events: recorder, clicks: deferredRecorder)
        // Email services' tracking domains, when a project has any: their clicks pass through to the service, and an
        // app opened by a tracking URL has it unwrapped (docs/email.md).
        var clickTracking: ClickTrackingProxy?
        if relink.projects.contains(where: { !$0.clickTracking.isEmpty }) {
            var trackingFetcher = SafeFetcher(policy: configuration.fetchPolicy, resolver: configuration.hostResolver)
            trackingFetcher.timeout = configuration.clickTrackingTimeout
            clickTracking = ClickTrackingProxy(directory: resolver.directory, fetcher: trackingFetcher, metrics: metrics)
        }
        let deferred = DeferredLinkService(
            resolver: resolver, recorder: deferredRecorder, events: recorder,
            hasher: AddressHasher(secrets: secrets), metrics: metrics, logger: logger,
            webhooks: webhooks, clickTracking: clickTracking, limiter: clientLimiter)
        metrics.onScrape { metrics in
            metrics.setQueueDepth(.clickEvents, recorder.depth)
            metrics.setQueueDepth(.pendingClicks, deferredRecorder.depth.buffered)
            metrics.setCacheEntries(cache.count)
        }

        // Outermost and alone: a request's id and count, and the API's JSON errors (also for unknown /v1 paths).
        let observer = RequestObservingMiddleware(
            metrics: metrics, servesMetrics: configuration.metrics.servesOnMainPort, servesConsole: configuration.console.servesOnMainPort,
            outages: outages, forwardedHeaders: configuration.forwardedHeaders, ipv6PrefixLength: configuration.ipv6PrefixLength,
            trackingDomains: clickTracking?.directory)
        router.add(middleware: observer)
        // An email service's tracking domains: passed to the service, but for their association files.
        if let clickTracking { router.add(middleware: ClickTrackingMiddleware(proxy: clickTracking, pages: pages)) }
        HealthController(projects: relink.projects.count).addRoutes(to: router)
        AssociationController(configuration: relink, pages: pages).addRoutes(to: router)
        if case .token(let token) = configuration.metrics { MetricsController(metrics: metrics, token: token).addRoutes(to: router) }
        let api = router.group(RouterPath(APIPath.version)).add(middleware: APIKeyMiddleware(authenticator: authenticator))
        ShortLinksController(service: service, rateLimiter: mintLimiter, metrics: metrics).addRoutes(to: api)
        LinksController(service: service).addRoutes(to: api)
        StatsController(service: service, recorder: recorder).addRoutes(to: api)
        DeferredClicksController(service: service, deferredRecorder: deferredRecorder).addRoutes(to: api)
        AttributionController(service: deferred, limiter: clientLimiter, metrics: metrics).addRoutes(to: api, outages: outages)
        OpenAPIController().addRoutes(to: api)
        WebhooksController(
            service: webhooks, policy: configuration.fetchPolicy,
            testLimiter: RateLimiter(capacity: 10_000, elapsed: configuration.rateLimitElapsed), metrics: metrics
        ).addRoutes(to: api)
        // The console: the API's services and mint limiter, with the signed-in key as the caller.
        let console = ConsoleController(
            service: service, recorder: recorder, authenticator: authenticator,
            sessions: ConsoleSessions(store: store, configuration: relink, secret: secrets.current), renderer: try ConsoleRenderer(),
            rateLimiter: mintLimiter, outages: outages,
            heavyLimiter: RateLimiter(capacity: 10_000, elapsed: configuration.rateLimitElapsed))
        if configuration.console.servesOnMainPort { console.addRoutes(to: router) }
        if configuration.console != .disabled, QRCode.Library.shared == nil {
            logger.notice("\(QRCode.EncodingError.libraryMissing(QRCode.Library.loadFailure)); the console works without them")
        }
        BeaconController(directory: resolver.directory, recorder: deferredRecorder, limiter: clientLimiter).addRoutes(to: router)
        // Last: everything else on a link domain is a click.
        var redirects = RedirectController(
            resolver: resolver, pages: pages, recorder: recorder, deferred: deferred,
            metrics: metrics, outages: outages, limiter: clientLimiter, authenticator: authenticator,
            countryHeader: configuration.countryHeader.flatMap { HTTPField.Name($0) }, countryDatabase: configuration.countryDatabase,
            webhooks: webhooks)
        if let clickIDs = configuration.clickIDs { redirects.clickIDs = clickIDs }
        redirects.addRoutes(to: router)
        lean =
            configuration.leanClicks
            ? LeanClickResponder(observer: observer, redirects: redirects, serverName: Self.serverName, onAnswer: configuration.onLeanClick) : nil
        // After every route, so it wraps the router's not-found responder alone (405 for a known /v1 path).
        router.add(
            middleware: MethodNotAllowedMiddleware(routes: router.routes, console: configuration.console.servesOnMainPort ? console.middleware : nil))
        self.router = router
        self.store = StoreService(store: store)
        self.recorder = recorder
        self.deferredRecorder = deferredRecorder
        self.linkChanges = store.linkChanges.map { LinkChangeWatcher(feed: $0, cache: cache) }
        self.previews = previews
        self.webhooks = webhooks
        self.metrics = metrics
        let limit = ConnectionLimit(maximum: configuration.maxConnections)
        heapTrim = HeapTrimService(limit: limit, logger: logger)
        let (header, body, send) = (
            TimeAmount(configuration.headerTimeout), TimeAmount(configuration.bodyTimeout), TimeAmount(configuration.sendTimeout)
        )
        http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [
                LingeringCloseHandler.Installer(), RequestHeadCheck.Installer(),
                RequestTimeoutHandler(headerTimeout: header, bodyTimeout: body, sendTimeout: send, limit: limit),
            ],
            idleTimeout: TimeAmount(configuration.idleTimeout))
        self.metricsServer = Self.metricsServer(configuration: configuration, http1: http1, metrics: metrics, logger: logger)
        self.consoleServer = Self.consoleServer(configuration: configuration, http1: http1, console: console, metrics: metrics, logger: logger)
    }

    /// A listener of its own serving only `/metrics`, for `--metrics-port`, with the same timeouts and connection
    /// limit as the main one.
    static func metricsServer(
        configuration: ServerConfiguration, http1: HTTP1Channel.Configuration, metrics: RelinkMetrics, logger: Logger
    ) -> (any Service)? {
        guard case .port(let host, let port, let token) = configuration.metrics else { return nil }
        let router = Router(options: [.autoGenerateHeadEndpoints])
        MetricsController(metrics: metrics, token: token).addRoutes(to: router)
        return Application(
            router: router, server: .http1(configuration: http1),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Relink"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { await configuration.onMetricsServerRunning?(port) }
                logger.info("Relink metrics on http://\(host):\(channel.localAddress?.port ?? port)/metrics")
            },
            logger: logger)
    }
}

extension ApplicationParts {
    /// A listener of its own serving only the console, for `--console-port`, with the same timeouts and connection
    /// limit as the main one.
    static func consoleServer(
        configuration: ServerConfiguration, http1: HTTP1Channel.Configuration, console: ConsoleController, metrics: RelinkMetrics,
        logger: Logger
    ) -> (any Service)? {
        guard case .port(let host, let port) = configuration.console else { return nil }
        let router = Router(context: RelinkRequestContext.self, options: [.autoGenerateHeadEndpoints])
        router.add(
            middleware: RequestObservingMiddleware(
                metrics: metrics, servesConsole: true, servesConsoleOnly: true, forwardedHeaders: configuration.forwardedHeaders,
                ipv6PrefixLength: configuration.ipv6PrefixLength))
        console.addRoutes(to: router)
        router.add(middleware: MethodNotAllowedMiddleware(routes: router.routes, console: console.middleware, servesLinks: false))
        return Application(
            router: router, server: .http1(configuration: http1),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Relink"),
            onServerRunning: { channel in
                if let port = channel.localAddress?.port { await configuration.onConsoleServerRunning?(port) }
                logger.info("Relink console on http://\(host):\(channel.localAddress?.port ?? port)/console")
            },
            logger: logger)
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
