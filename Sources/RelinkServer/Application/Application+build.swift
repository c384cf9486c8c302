import Hummingbird
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Builds the Relink service: the same application `relink serve` runs and the tests drive.
public func buildApplication(configuration: ServerConfiguration) throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "relink")
        logger.logLevel = configuration.logLevel
        return logger
    }()
    let parts = try ApplicationParts(configuration: configuration, logger: logger)
    let summary = configuration.relink.projects.map { project in
        "\(project.id) (\(project.domains.map(\.description).joined(separator: ", ")))"
    }.joined(separator: "; ")
    return Application(
        router: parts.router,
        server: .http1(configuration: .init(idleTimeout: TimeAmount(configuration.idleTimeout))),
        configuration: ApplicationConfiguration(
            address: .hostname(configuration.host, port: configuration.port), serverName: "Relink"),
        // Listed after the server, so graceful shutdown stops the server first and then writes the last events.
        services: parts.services,
        onServerRunning: { channel in
            if let port = channel.localAddress?.port { await configuration.onServerRunning?(port) }
            let address = channel.localAddress.map { "\($0.ipAddress ?? configuration.host):\($0.port ?? configuration.port)" }
            logger.info(
                "Relink listening on http://\(address ?? "\(configuration.host):\(configuration.port)"); \(configuration.store.description); serving \(summary)"
            )
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

    /// Started in this order and stopped in the reverse: the store outlives the recorders' last writes.
    var services: [any Service] {
        [store, recorder, deferredRecorder] + (linkChanges.map { [$0] } ?? [])
    }

    init(configuration: ServerConfiguration, logger: Logger) throws {
        let relink = configuration.relink
        let store = configuration.store
        let router = Router(context: RelinkRequestContext.self, options: [.autoGenerateHeadEndpoints])
        let pages = try PageRenderer()
        let cache = LinkCache()
        let recorder = EventRecorder(store: store, interval: configuration.eventFlushInterval, logger: logger)
        let authenticator = APIKeyAuthenticator(
            store: store, configuration: relink, failures: RateLimiter(), forwardedHeaders: configuration.forwardedHeaders)
        // Every path from a URL to its link goes through this one resolver.
        let resolver = LinkResolver(configuration: relink, store: store, cache: cache)
        let service = ShortLinkService(resolver: resolver)
        let deferredRecorder = DeferredClickRecorder(
            store: store, configuration: relink, interval: configuration.eventFlushInterval, logger: logger)
        let deferred = DeferredLinkService(
            resolver: resolver, recorder: deferredRecorder, events: recorder,
            hasher: AddressHasher(secrets: configuration.addressHashSecrets ?? .ephemeral()))
        let clientLimiter = RateLimiter<String>()

        HealthController(projects: relink.projects.count).addRoutes(to: router)
        AssociationController(configuration: relink, pages: pages, forwardedHeaders: configuration.forwardedHeaders)
            .addRoutes(to: router)
        // Router-wide, so that unknown paths under /v1 (which no route matches) get the API's JSON error too.
        router.add(middleware: APIErrorMiddleware())
        let api = router.group(RouterPath(APIPath.version)).add(middleware: APIKeyMiddleware(authenticator: authenticator))
        ShortLinksController(service: service, rateLimiter: RateLimiter<Int64>()).addRoutes(to: api)
        LinksController(service: service).addRoutes(to: api)
        StatsController(service: service, recorder: recorder).addRoutes(to: api)
        AttributionController(service: deferred, rateLimiter: clientLimiter, forwardedHeaders: configuration.forwardedHeaders)
            .addRoutes(to: api)
        OpenAPIController().addRoutes(to: api)
        BeaconController(
            directory: resolver.directory, recorder: deferredRecorder, rateLimiter: clientLimiter,
            forwardedHeaders: configuration.forwardedHeaders
        ).addRoutes(to: router)
        // Last: everything else on a link domain is a click.
        RedirectController(
            resolver: resolver, pages: pages, forwardedHeaders: configuration.forwardedHeaders, recorder: recorder, deferred: deferred
        ).addRoutes(to: router)
        self.router = router
        self.store = StoreService(store: store)
        self.recorder = recorder
        self.deferredRecorder = deferredRecorder
        self.linkChanges = store.linkChanges.map { LinkChangeWatcher(feed: $0, cache: cache) }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
