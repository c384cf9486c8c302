import Foundation
import Hummingbird
import Logging
import RelinkCore
import RelinkStore

/// Every other GET or HEAD on a link domain: long links, routes and short links, answered by the redirect plan.
struct RedirectController: Sendable {
    let directory: DomainDirectory
    /// Per project: the validation context (every link domain, and the project itself), built once.
    let contexts: [String: LinkValidationContext]
    let pages: PageRenderer
    let forwardedHeaders: ForwardedHeaderPolicy
    let store: any RelinkStore
    let cache: LinkCache
    let recorder: EventRecorder
    let deferred: DeferredLinkService

    init(
        configuration: RelinkConfiguration, pages: PageRenderer, forwardedHeaders: ForwardedHeaderPolicy, store: any RelinkStore,
        cache: LinkCache, recorder: EventRecorder, deferred: DeferredLinkService
    ) {
        directory = DomainDirectory(configuration)
        let domains = configuration.allDomains
        contexts = Dictionary(
            uniqueKeysWithValues: configuration.projects.map { ($0.id, LinkValidationContext(linkDomains: domains, project: $0)) })
        self.pages = pages
        self.forwardedHeaders = forwardedHeaders
        self.store = store
        self.cache = cache
        self.recorder = recorder
        self.deferred = deferred
    }

    func addRoutes(to router: Router<RelinkRequestContext>) {
        for path: RouterPath in ["/", "**"] {
            router.get(path) { request, context in try await handle(request, context) }
            router.head(path) { request, context in try await handle(request, context).createHeadResponse() }
        }
    }

    func handle(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let path = Substring(request.uri.path)
        // The API lives under /v1 on every host; a path there that no API route took is an unknown method.
        if path.hasPrefix("/v1/") || path == "/v1" { throw APIError.notFound("No such API method: \(request.method) \(path).") }
        let origin = RequestOrigin(request: request, remoteAddress: context.remoteAddress, policy: forwardedHeaders)
        guard let match = directory.match(host: origin.host, path: path) else {
            if directory.servesHost(origin.host) {
                return pages.message("Link not found", ["There is no link at \(origin.host)\(path)."], status: .notFound)
            }
            return pages.message("Unknown link domain", ["Relink serves no project on \(origin.host)."], status: .notFound)
        }
        let linkContext = contexts[match.project.id] ?? LinkValidationContext()
        let query = request.uri.query.map { Substring($0) }
        switch LinkRequest.resolve(
            project: match.project, prefix: match.prefix, relativePath: match.relativePath, query: query, context: linkContext)
        {
        case .longLink(let link), .route(let link):
            return await respond(to: link, project: match.project, prefix: match.prefix, request: request, origin: origin)
        case .shortLink(let code, let debug):
            return try await respond(
                toShortLink: code, debug: debug, match: match, context: linkContext, request: request, origin: origin, logger: context.logger)
        case .notFound:
            return pages.message("Link not found", ["There is no link at \(match.prefix.url(path: String(match.relativePath)))."], status: .notFound)
        }
    }

    func respond(to link: ResolvedLink, project: Project, prefix: DomainURIPrefix, request: Request, origin: RequestOrigin) async -> Response {
        let client = PlatformDetector.detect(userAgent: request.headers[.userAgent] ?? "")
        let isHead = request.method == .head
        let plan = RedirectPlanner.plan(link, project: project, client: client, isHead: isHead)
        guard !isHead, !link.isDebug else { return render(plan) }
        let (decorated, clickID) = await keepForInstall(
            plan, link: link, linkId: nil, project: project, client: client, request: request, origin: origin)
        return render(decorated, clickID: clickID, prefix: prefix)
    }

    /// For a click that may lead to an install: its id in the plan, and the click kept for the install to claim.
    func keepForInstall(
        _ plan: RedirectPlan, link: ResolvedLink, linkId: Int64?, project: Project, client: DetectedClient, request: Request,
        origin: RequestOrigin
    ) async -> (RedirectPlan, String?) {
        guard client.platform.isIOS || client.platform == .android, plan.mayLeadToInstall else { return (plan, nil) }
        let clickID = DeferredLinkService.newClickID()
        let claimURL: String? = project.deferred.clipboard ? DeferredLinkService.claimURL(for: link, clickID: clickID) : nil
        let fingerprint = await deferred.fingerprint(
            client: client, clientAddress: origin.clientAddress, userAgent: request.headers[.userAgent] ?? "",
            acceptLanguage: request.headers[.acceptLanguage])
        deferred.capture(clickID: clickID, project: project, link: link, linkId: linkId, platform: client.platform, fingerprint: fingerprint)
        return (RedirectPlanner.decorate(plan, parameters: link.parameters, clickID: clickID, claimURL: claimURL), clickID)
    }

    func respond(
        toShortLink code: ShortCode, debug: Bool, match: DomainDirectory.Match, context: LinkValidationContext, request: Request,
        origin: RequestOrigin, logger: Logger
    ) async throws -> Response {
        let domain = match.prefix.description
        let entry: LinkCache.Entry
        do {
            entry = try await cache.entry(domain: domain, code: code.value) { try await store.link(domain: domain, code: code.value) }
        } catch {
            logger.error("short link lookup failed for \(domain)/\(code): \(error)")
            return pages.message("Temporarily unavailable", ["The link could not be looked up. Please try again."], status: .serviceUnavailable)
        }
        guard let record = entry.link else { return notFound(shortLink: match.prefix.url(path: "/\(code)")) }
        let client = PlatformDetector.detect(userAgent: request.headers[.userAgent] ?? "")
        let isHead = request.method == .head
        // A click is a human request; crawlers are counted apart, HEAD and the debug page not at all.
        let counts = !isHead && !debug
        guard record.isActive(at: Date()) else {
            if counts { recorder.record(linkId: record.id, platform: client.platform, event: .click) }
            let reason = record.disabled ? "This link has been disabled." : "This link has expired."
            return pages.message("Link no longer available", [reason, "Short URL (\(domain)/\(code))"], status: .gone)
        }
        let resolved = entry.resolved.get { ResolvedShortLink(record: record, project: match.project, prefix: match.prefix) }
        var plan: RedirectPlan
        var clickID: String?
        if debug || isHead {
            var link = resolved.link
            link.isDebug = debug
            if debug {
                let validation = LinkValidator.validate(record.parameters, prefix: match.prefix, context: context)
                link.warnings = validation.warnings
                link.errors = validation.errors
            }
            plan = RedirectPlanner.plan(link, project: match.project, client: client, isHead: isHead)
        } else {
            (plan, clickID) = await keepForInstall(
                resolved.plan(for: client, project: match.project), link: resolved.link, linkId: record.id, project: match.project,
                client: client, request: request, origin: origin)
        }
        if counts {
            let redirected = client.platform != .crawler && plan.redirectURL != nil
            recorder.record(linkId: record.id, platform: client.platform, events: redirected ? [.click, .redirect] : [.click])
        }
        return render(plan, clickID: clickID, prefix: match.prefix)
    }

    func render(_ plan: RedirectPlan, clickID: String? = nil, prefix: DomainURIPrefix? = nil) -> Response {
        switch plan {
        case .redirect(let url, _):
            return Response(status: .found, headers: [.location: PercentEncoding.encodeForURL(url), .cacheControl: "no-store"])
        case .appPreview(let preview):
            return pages.html(
                .appPreview,
                [
                    "appName": preview.appName, "title": preview.title ?? preview.appName, "description": preview.description as Any,
                    "imageURL": preview.imageURL as Any, "openURL": PercentEncoding.encodeForURL(preview.openURL),
                    "webURL": PercentEncoding.encodeForURL(preview.webURL), "claimURL": preview.claimURL as Any,
                    "clickID": clickID as Any, "beaconPath": (prefix?.path ?? "") + "/_/beacon",
                ])
        case .socialPreview(let preview):
            return pages.html(
                .socialPreview,
                [
                    "title": preview.title ?? preview.canonicalURL, "description": preview.description as Any,
                    "imageURL": preview.imageURL as Any, "canonicalURL": PercentEncoding.encodeForURL(preview.canonicalURL),
                ], noIndex: false)
        case .debug(let report):
            return pages.html(.debug, Self.debugValues(report))
        case .rejected(let rejection):
            let lines = rejection.errors.map(\.message) + rejection.violations.map(\.description)
            return pages.message("Invalid Dynamic Link", lines, status: .badRequest)
        }
    }

    /// FDL's wording for an unknown short link.
    func notFound(shortLink url: String) -> Response {
        pages.message("Dynamic Link Not Found", ["Short URL (\(url)) not found."], status: .notFound)
    }

    static func debugValues(_ report: DebugReport) -> [String: Any] {
        let kind: String
        switch report.kind {
        case .longLink: kind = "long link"
        case .route(let template): kind = "route \(template)"
        case .shortLink(let code): kind = "short link \(code)"
        }
        return [
            "linkURL": report.linkURL,
            "kind": kind,
            "flowchart": DebugFlowchart.svg(report),
            "outcomes": report.outcomes.map { outcome -> [String: Any] in
                [
                    "scenario": outcome.scenario, "action": outcome.action, "reason": outcome.reason,
                    "destination": outcome.destination.map(PercentEncoding.encodeForURL) as Any,
                ]
            },
            "hasProblems": !(report.errors.isEmpty && report.violations.isEmpty && report.warnings.isEmpty),
            "errors": report.errors.map { ["code": $0.code.rawValue, "message": $0.message] },
            "violations": report.violations.map { ["message": $0.description] },
            "warnings": report.warnings.map { ["code": $0.code.rawValue, "message": $0.message] },
            "parameters": report.parameters.entries.map { ["name": $0.parameter.name, "value": $0.value, "summary": $0.parameter.summary] },
        ]
    }
}
