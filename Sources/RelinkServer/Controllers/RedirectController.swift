import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// Every other GET or HEAD on a link domain: long links, routes and short links, answered by the redirect plan.
struct RedirectController: Sendable {
    let resolver: LinkResolver
    let pages: PageRenderer
    let recorder: EventRecorder
    let deferred: DeferredLinkService
    var metrics: RelinkMetrics? = nil
    var outages: StoreOutageLog? = nil
    /// Limits how fast one client network leaves clicks on long links to be kept (nil: no limit, in tests).
    var limiter: ClientLimiter? = nil
    /// Checks the key of a marked click (`relink verify --url`); nil: marked clicks are refused.
    var authenticator: APIKeyAuthenticator? = nil
    /// Where a trusted proxy says the client's country is, for link rules.
    var countryHeader: HTTPField.Name? = nil
    /// Where the client's address says its country is, when no header does.
    var countryDatabase: CountryDatabase? = nil
    /// Outgoing `click` events.
    var webhooks: WebhookService? = nil
    /// Makes the id of each kept click.
    var clickIDs: @Sendable () -> String = DeferredLinkService.newClickID
    /// The click limits of links, by link id (one table for the app: the controller is built once).
    let clickLimits = ClickLimits()

    func addRoutes(to router: Router<RelinkRequestContext>) {
        for path: RouterPath in ["/", "**"] {
            router.get(path) { request, context in try await handle(request, context) }
            router.head(path) { request, context in try await handle(request, context).createHeadResponse() }
            // Any other method on a link is a mistake of the client's, said as such (it was an empty 404).
            for method: HTTPRequest.Method in [.put, .delete, .patch, .options] {
                router.on(path, method: method) { request, _ in try Self.methodNotAllowed(request) }
            }
        }
        for path in Self.pathsBelowServedOnes(router.routes) {
            router.get(path) { request, context in try await handle(request, context) }
            router.head(path) { request, context in try await handle(request, context).createHeadResponse() }
        }
    }

    /// Below each first segment Relink serves on this router (`/healthz/x`, `/.well-known/x`), and that segment alone
    /// where nothing is served (`/.well-known`): the router does not go back from a segment it has begun to follow to
    /// `**`, so they got an empty 404 rather than the answer of any other path without a link. Other methods there
    /// get their 405 from `MethodNotAllowedMiddleware`. The API and the console answer below their own.
    static func pathsBelowServedOnes(_ routes: [Router<RelinkRequestContext>.RouteDescription]) -> [RouterPath] {
        var served: [String: Bool] = [:]
        for route in routes {
            let segments = route.path.description.split(separator: "/")
            guard let first = segments.first.map(String.init), RelinkPaths.reservedCodes.contains(first),
                first != APIPath.version, "/" + first != RelinkPaths.console
            else { continue }
            served[first] = (served[first] ?? false) || segments.count == 1
        }
        return served.keys.sorted().flatMap { first in
            [RouterPath("/\(first)/**")] + (served[first] == true ? [] : [RouterPath("/\(first)")])
        }
    }

    /// 405 with `Allow: GET, HEAD` for a method links do not answer; under `/v1`, the API's JSON 404 for a path no
    /// API route has.
    static func methodNotAllowed(_ request: Request) throws -> Response {
        let path = Substring(request.uri.path)
        if APIPath.isAPI(path) { throw APIError.notFound("No such API method: \(request.method) \(path).") }
        return Response(
            status: .methodNotAllowed, headers: [.allow: "GET, HEAD", .contentType: "text/plain; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: "Relink's links answer GET and HEAD only.\n")))
    }

    /// A click through the router: everything that may wait (the store's lookup, a marked click's key, a click
    /// limit), then the answer `answer(…)` gives.
    func handle(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let path = Substring(request.uri.path)
        // The API lives under /v1 on every host; a path there that no API route took is an unknown method.
        if APIPath.isAPI(path) { throw APIError.notFound("No such API method: \(request.method) \(path).") }
        let origin = context.origin
        let resolution: LinkResolver.Resolution
        do {
            resolution = try await resolver.resolve(host: origin.host, path: path, query: request.uri.query.map { Substring($0) })
        } catch {
            if let outages {
                outages.report("lookup", "short link lookup failed for \(origin.host)\(path)", error: error)
            } else {
                context.logger.error("short link lookup failed for \(origin.host)\(path): \(error)")
            }
            count(.shortLink, outcome: .unavailable, context)
            return Self.unavailable(pages)
        }
        var uncounted = false
        var overLimit = false
        switch resolution {
        case .inactive(let record, _):
            uncounted = try await isUncounted(request, projectId: record.projectId, context: context)
        case .found(let target):
            uncounted = try await isUncounted(request, projectId: target.project.id, context: context)
            if let shortLink = target.shortLink, let limit = shortLink.record.maxClicks {
                // A human click takes one of the limit's clicks before it is answered, atomically, so clicks arriving
                // together cannot all pass; crawlers, HEAD, checks and the debug page only look.
                let takesOne =
                    request.method != .head && !uncounted && !target.link.isDebug && context.detectedClient(request).platform != .crawler
                do {
                    overLimit = try await !takeClick(shortLink, limit: Int64(limit), taking: takesOne)
                } catch {
                    outages?.report("lookup", "click count of \(shortLink.record.shortLink) failed", error: error)
                    return Self.unavailable(pages)
                }
            }
        case .unknownDomain, .notFound, .unknownShortLink:
            break
        }
        return answer(resolution, request: request, context: context, uncounted: uncounted, overLimit: overLimit).response
    }

    /// What a click comes to without waiting (the lean path, `LeanClickHandler`), for a request on `host`: nil when
    /// its answer needs what may wait, a store that is not immediate (a link not in the cache on PostgreSQL), a key
    /// check (a marked click) or a click limit, or when the store failed; the router answers those.
    func resolutionNow(_ request: Request, host: String) -> LinkResolver.Resolution? {
        let path = Substring(request.uri.path)
        // An email service's tracking domain is the router's (`ClickTrackingMiddleware`).
        guard !APIPath.isAPI(path), BearerCredential.token(in: request.headers) == nil, resolver.directory.clickTracking(host: host) == nil,
            case .resolved(let resolution) = try? resolver.resolveNow(host: host, path: path, query: request.uri.query.map { Substring($0) })
        else { return nil }
        if case .found(let target) = resolution, target.shortLink?.record.maxClicks != nil { return nil }
        return resolution
    }

    /// What a click is answered with once nothing is left to wait for: the one place each kind of click's answer,
    /// its counting and its kept click are decided, for the router and the lean path alike.
    func answer(
        _ resolution: LinkResolver.Resolution, request: Request, context: RelinkRequestContext, uncounted: Bool, overLimit: Bool
    ) -> ClickAnswer {
        switch resolution {
        case .unknownDomain(let host):
            count(.unknownLink, outcome: .notFound, context)
            return pages.messagePage("Unknown link domain", ["Relink serves no project on \(host)."], status: .notFound)
        case .notFound(let url):
            count(.unknownLink, outcome: .notFound, context)
            return pages.messagePage("Link not found", ["There is no link at \(url)."], status: .notFound)
        case .unknownShortLink(let url):
            // FDL's wording for an unknown short link.
            count(.shortLink, outcome: .notFound, context)
            return pages.messagePage("Dynamic Link Not Found", ["Short URL (\(url)) not found."], status: .notFound)
        case .inactive(let record, let debug):
            let reason = record.disabled ? "This link has been disabled." : "This link has expired."
            let client = context.detectedClient(request)
            return Self.marked(
                gone(record, reason: reason, debug: debug, request: request, client: client, context: context, uncounted: uncounted), uncounted)
        case .found(let target):
            let client = context.detectedClient(request)
            if overLimit, let record = target.shortLink?.record, let limit = record.maxClicks {
                let reason = "This link has reached its limit of \(limit) click\(limit == 1 ? "" : "s")."
                return Self.marked(
                    gone(
                        record, reason: reason, debug: target.link.isDebug, request: request, client: client, context: context,
                        uncounted: uncounted),
                    uncounted)
            }
            return Self.marked(respond(to: target, request: request, client: client, context: context, uncounted: uncounted), uncounted)
        }
    }

    /// 503 with `Retry-After`, when the store could not say what a link is.
    static func unavailable(_ pages: PageRenderer) -> Response {
        var response = pages.message(
            "Temporarily unavailable", ["The link could not be looked up. Please try again."], status: .serviceUnavailable)
        response.headers[.retryAfter] = "1"
        return response
    }

    /// Whether a limited link may still be followed, taking one of its clicks when `taking`. The count is kept in
    /// memory by link id (`ClickLimits`): the store's count (with this instance's unwritten clicks) read at most once a
    /// second, merged so that clicks this instance took meanwhile are never lost, plus the clicks taken since.
    func takeClick(_ shortLink: ResolvedShortLink, limit: Int64, taking: Bool) async throws -> Bool {
        let linkId = shortLink.record.id
        let record = shortLink.record
        return try await clickLimits.take(
            linkId: linkId, projectId: record.projectId, version: record.updatedAt.timeIntervalSince1970, limit: limit, taking: taking
        ) {
            try await recorder.clickCount(linkId: linkId) { try await resolver.store.clickCount(linkId: linkId) }
        }
    }

    /// A link that no longer redirects (disabled, expired, over its click limit): its `expiredLink` when it has one
    /// (and the allowlist still takes it), else 410 Gone with a small page; the debug page says which and why.
    /// Such clicks are counted as clicks, never as redirects to the link's destination.
    func gone(
        _ record: ShortLinkRecord, reason: String, debug: Bool, request: Request, client: DetectedClient, context: RelinkRequestContext,
        uncounted: Bool
    ) -> ClickAnswer {
        let match = resolver.directory.shortLink(record.shortLink)
        let fallback = record.expiredLink.flatMap { url -> String? in
            guard let project = match?.project, project.allowlist.allows(url, projectDomains: project.domains) else { return nil }
            return url
        }
        if debug, let (project, prefix, _) = match {
            var link = ResolvedShortLink(record: record, project: project, prefix: prefix).link
            link.isDebug = true
            if case .debug(var report) = RedirectPlanner.plan(link, project: project, client: client) {
                report.stateNotes = [reason + " " + (fallback.map { "Clicks go to \($0) (expiredLink)." } ?? "Clicks get 410 Gone.")]
                return pages.page(DebugPage(report))
            }
        }
        if request.method != .head, !uncounted {
            recorder.record(linkId: record.id, platform: client.platform, event: .click)
        }
        count(.shortLink, platform: client.platform, outcome: .gone, context)
        if let fallback {
            return ClickAnswer(status: .found, headers: [.location: PercentEncoding.encodeForURL(fallback), .cacheControl: "no-store"])
        }
        return pages.messagePage("Link no longer available", [reason, "Short URL (\(record.shortLink))"], status: .gone)
    }

    /// Whether the click is marked as a check (`relink verify --url`) by a key of the link's project, and so is
    /// answered as any click but neither counted nor kept for deferred linking. A browser never sends
    /// `Authorization: Bearer` with a click; a wrong key is refused as on the API (401, 429 past the failed-key budget),
    /// so a mistake is never silently counted.
    func isUncounted(_ request: Request, projectId: String, context: RelinkRequestContext) async throws -> Bool {
        // The Bearer scheme (see `BearerCredential`): anything else (Basic, no scheme) is an ordinary click.
        guard let key = context.bearer else { return false }
        guard let authenticator else { throw APIError.permissionDenied("Marked clicks are not accepted here.") }
        guard !key.isEmpty else {
            throw APIError(status: .unauthorized, message: "A marked click needs Authorization: Bearer <API key of the link's project>.")
        }
        let caller = try await authenticator.authenticate(bearer: String(key), request: request, context: context)
        guard caller.project.id == projectId else {
            throw APIError.permissionDenied("This API key belongs to project \(caller.project.id), not to this link's project.")
        }
        return true
    }

    static func marked(_ answer: ClickAnswer, _ uncounted: Bool) -> ClickAnswer {
        guard uncounted else { return answer }
        var answer = answer
        answer.headers[MarkedClick.responseHeaderName] = MarkedClick.uncounted
        return answer
    }

    /// Counts a click in the metrics, with the time since its request began.
    private func count(
        _ kind: RelinkMetrics.RequestKind, platform: Platform? = nil, outcome: RelinkMetrics.Outcome, _ context: RelinkRequestContext
    ) {
        metrics?.request(kind, platform: platform, outcome: outcome, duration: .now - context.requestStart)
    }

    func respond(
        to target: LinkResolver.Target, request: Request, client: DetectedClient, context: RelinkRequestContext, uncounted: Bool = false
    ) -> ClickAnswer {
        let origin = context.origin
        let isHead = request.method == .head
        var link = target.link
        var plan: RedirectPlan
        var clickID: String?
        var variant: String?
        if let rules = target.shortLink?.rules {
            // Rules and variants decide per click, from memory; their plan is made for this click alone.
            let decision = RuleEvaluator.decide(
                rules, parameters: link.parameters,
                context: clickContext(
                    request, origin: origin, needsVisitorKey: rules.hasVariants,
                    client: rules.usesOSVersion
                        ? PlatformDetector.addingDeviceDetails(to: client, userAgent: request.headers[.userAgent] ?? "") : client),
                explain: link.isDebug)
            link.parameters = decision.parameters
            variant = decision.variant
            plan = RedirectPlanner.plan(link, project: target.project, client: client, isHead: isHead)
            if case .debug(var report) = plan {
                report.ruleNotes = Self.describe(decision)
                plan = .debug(report)
            }
            if !isHead, !link.isDebug, !uncounted {
                let decided = LinkResolver.Target(project: target.project, prefix: target.prefix, link: link, shortLink: target.shortLink)
                (plan, clickID) = keepForInstall(
                    plan, target: decided, client: client, request: request, context: context, variant: decision.variant)
            }
        } else if isHead || link.isDebug {
            plan = RedirectPlanner.plan(link, project: target.project, client: client, isHead: isHead)
        } else {
            plan =
                target.shortLink?.plan(for: client, project: target.project)
                ?? RedirectPlanner.plan(link, project: target.project, client: client)
            if !uncounted {
                (plan, clickID) = keepForInstall(plan, target: target, client: client, request: request, context: context)
            }
        }
        // A click on a short link is a human request; crawlers are counted apart, HEAD, the debug page and checks not
        // at all.
        if let record = target.shortLink?.record, !isHead, !link.isDebug, !uncounted {
            let redirected = client.platform != .crawler && plan.redirectURL != nil
            recorder.record(
                linkId: record.id, platform: client.platform, events: redirected ? [.click, .redirect] : [.click], variant: variant)
            webhooks?.emitClick(
                projectId: record.projectId,
                data: ClickEventData(
                    shortLink: record.shortLink, platform: StatsPlatform(client.platform).rawValue, variant: variant,
                    destination: plan.redirectURL))
        }
        let response = render(plan, clickID: clickID, prefix: target.prefix)
        if metrics != nil {
            let kind: RelinkMetrics.RequestKind =
                target.shortLink != nil ? .shortLink : (link.kind == .longLink ? .longLink : .route)
            count(kind, platform: client.platform, outcome: plan.metricsOutcome, context)
        }
        return response
    }

    /// What the rules look at: the proxy's country, the preferred language, the client, and a visitor key (the
    /// client's network and browser) so that a visitor keeps their variant without a cookie. The country header is
    /// read only from a trusted proxy: a client talking to Relink directly would pick its own country.
    func clickContext(_ request: Request, origin: RequestOrigin, needsVisitorKey: Bool = true, client: DetectedClient) -> ClickContext {
        var country: String?
        if let countryHeader, origin.viaTrustedProxy, let value = request.headers[countryHeader], value.utf8.count == 2 {
            let upper = value.uppercased()
            // Cloudflare's XX (unknown) and T1 (Tor) are not countries.
            if upper.allSatisfy({ $0.isASCII && $0.isLetter }), upper != "XX" { country = upper }
        }
        if country == nil, let countryDatabase, let address = origin.clientAddress {
            country = countryDatabase.country(of: address)
        }
        // Built only for links with variants: it formats the network and copies the User-Agent.
        let visitorKey =
            needsVisitorKey ? (origin.clientAddress.map { ClientNetwork.anonymized($0) } ?? "") + "|" + (request.headers[.userAgent] ?? "") : ""
        return ClickContext(
            country: country, language: ClickContext.preferredLanguage(request.headers[.acceptLanguage]), client: client, now: Date(),
            visitorKey: visitorKey)
    }

    static func describe(_ decision: RuleEvaluator.Decision) -> [String] {
        var notes = decision.explanation
        if decision.rule == nil { notes.append("no rule matches: the link's own destinations") }
        return notes
    }

    /// For a click that may lead to an install: its id in the plan, and the click kept for the install to claim.
    func keepForInstall(
        _ plan: RedirectPlan, target: LinkResolver.Target, client: DetectedClient, request: Request, context: RelinkRequestContext,
        variant: String? = nil
    ) -> (RedirectPlan, String?) {
        let origin = context.origin
        guard client.platform.isIOS || client.platform == .android, plan.mayLeadToInstall else { return (plan, nil) }
        let link = target.link
        // Past its budget of long links, or of kept clicks, in the link's project, a client network's clicks still
        // redirect and count, without being kept. The long-link budget is asked first: a long link refused there must
        // not spend a token of the kept clicks. Requests without an address (a connection reset while its pipelined
        // requests are served, or an in-memory test client) share one budget of kept clicks per project, which bounds
        // their long links too.
        if let limiter {
            let projectId = target.project.id
            if link.url.utf8.count > PendingClick.inlineLinkLength, origin.clientAddress != nil,
                case .failure = limiter.acquire(.longLinkCapture, network: context.clientNetwork, projectId: projectId)
            {
                return (plan, nil)
            }
            if case .failure = limiter.acquire(.clickCapture, network: context.clientNetwork, projectId: projectId) { return (plan, nil) }
        }
        let clickID = clickIDs()
        // Only a preview page copies the claim link: a redirect to the store does not build it.
        var claimURL: String?
        if case .appPreview = plan, target.project.deferred.clipboard { claimURL = DeferredLinkService.claimURL(for: link, clickID: clickID) }
        let fingerprint = deferred.fingerprint(
            client: client, clientAddress: origin.clientAddress, userAgent: request.headers[.userAgent] ?? "",
            acceptLanguage: request.headers[.acceptLanguage])
        deferred.capture(
            clickID: clickID, project: target.project, link: link, linkId: target.shortLink?.record.id, platform: client.platform,
            fingerprint: fingerprint, variant: variant)
        return (RedirectPlanner.decorate(plan, parameters: link.parameters, clickID: clickID, claimURL: claimURL), clickID)
    }

    func render(_ plan: RedirectPlan, clickID: String? = nil, prefix: DomainURIPrefix? = nil) -> ClickAnswer {
        switch plan {
        case .redirect(let url, _, _):
            return ClickAnswer(status: .found, headers: [.location: PercentEncoding.encodeForURL(url), .cacheControl: "no-store"])
        case .appPreview(let preview):
            return pages.page(
                AppPreviewPage(
                    appName: preview.appName, title: preview.title ?? preview.appName, description: preview.description,
                    imageURL: preview.imageURL, openURL: PercentEncoding.encodeForURL(preview.openURL),
                    webURL: PercentEncoding.encodeForURL(preview.webURL), claimURL: preview.claimURL, clickID: clickID,
                    beaconPath: (prefix?.path ?? "") + BeaconController.path))
        case .socialPreview(let preview):
            return pages.page(
                SocialPreviewPage(
                    title: preview.title ?? preview.canonicalURL, description: preview.description, imageURL: preview.imageURL,
                    canonicalURL: PercentEncoding.encodeForURL(preview.canonicalURL)),
                noIndex: false)
        case .debug(let report):
            return pages.page(DebugPage(report))
        case .rejected(let rejection):
            let lines = rejection.errors.map(\.message) + rejection.violations.map(\.description)
            return pages.messagePage("Invalid Dynamic Link", lines, status: .badRequest)
        }
    }
}

extension RedirectPlan {
    var metricsOutcome: RelinkMetrics.Outcome {
        switch self {
        case .redirect: .redirect
        case .appPreview: .appPreview
        case .socialPreview: .socialPreview
        case .debug: .debug
        case .rejected: .rejected
        }
    }
}

/// The `data` of a `click` webhook event: never the client's address or User-Agent.
struct ClickEventData: Encodable, Sendable {
    var shortLink: String
    var platform: String
    var variant: String?
    /// Where the click was redirected; nil for a page (the iOS preview, a crawler's card).
    var destination: String?
}
