import HTTPTypes
import Hummingbird
import Logging
import RelinkCore

/// The one router-wide middleware (each layer costs every request): gives each request its id (the caller's
/// `X-Request-Id` when it is a plain token, else Hummingbird's), sends it back as `X-Request-Id`, puts it on the
/// request's logger, works out once what the routes read from the context (`learnFacts`: origin, client network,
/// bearer token, detected client), turns every failure under `/v1` into the API's JSON error (`APIErrorMapping`, also
/// for unknown paths there, which no route matches), and counts every request that is not a click (the redirect
/// controller counts clicks, with their kind, platform and outcome).
struct RequestObservingMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    static let requestIdHeader = HTTPField.Name("X-Request-Id")!
    let metrics: RelinkMetrics?
    /// Whether `/metrics` is a route on this port (`--metrics-token`); otherwise it is a link path like any other.
    var servesMetrics = false
    /// Whether the console is served under `/console` on this port.
    var servesConsole = false
    /// Whether the console is all this port serves (`--console-port`): every request on it is the console's.
    var servesConsoleOnly = false
    /// Where store failures are logged (once per interval) and counted.
    var outages: StoreOutageLog? = nil
    /// Which forwarded headers count, and from whom (`--trusted-proxies`, `--forwarded-header`).
    var forwardedHeaders = ForwardedHeaderPolicy.none
    /// The IPv6 prefix length client limits count by (`--ipv6-limit-prefix`).
    var ipv6PrefixLength = 64
    /// The domains when a project has email services' tracking domains, whose requests passed to the service
    /// (`ClickTrackingMiddleware.passesToService`) are counted as `click_tracking`; nil when none has.
    var trackingDomains: DomainDirectory? = nil

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let (requestId, kind) = learn(request, context: &context)
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let mapped =
                kind == .api ? APIErrorMapping.apiError(error, request: request, context: context, outages: outages) : error
            guard let answer = mapped as? any HTTPResponseError else { throw mapped }
            response = try answer.response(from: request, context: context)
        }
        response.headers[Self.requestIdHeader] = requestId
        if kind == .console, response.headers[.contentSecurityPolicy] == nil {
            // What no console route answered (a method it does not take): still never cached, sniffed or framed.
            for field in ConsoleRenderer.securityHeaders where response.headers[field.name] == nil { response.headers.append(field) }
            response.headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        }
        if let kind, let metrics {
            metrics.request(kind, platform: nil, outcome: .init(status: response.status.code), duration: .now - context.requestStart)
        }
        return response
    }

    /// The request's id (also on its logger) and kind, and the facts the routes read from the context: worked out
    /// here for the router and for the lean path (`LeanClickHandler`) alike.
    func learn(_ request: Request, context: inout Context, knownOrigin: RequestOrigin? = nil) -> (requestId: String, kind: RelinkMetrics.RequestKind?)
    {
        let requestId: String
        if let given = request.headers[Self.requestIdHeader], Self.isPlainToken(given) {
            requestId = given
            context.logger[metadataKey: "hb.request.id"] = .string(given)
        } else {
            requestId = context.id
        }
        var kind = kind(of: request)
        context.learnFacts(
            of: request, kind: kind, forwardedHeaders: forwardedHeaders, ipv6PrefixLength: ipv6PrefixLength, knownOrigin: knownOrigin)
        // `/healthz` and `/metrics` learn no origin (`learnFacts`), so they are Relink's on every host.
        if let trackingDomains, kind != .health, kind != .metrics, let (_, tracking) = trackingDomains.clickTracking(host: context.origin.host),
            ClickTrackingMiddleware.passesToService(request.uri.path, on: tracking)
        {
            kind = .clickTracking
        }
        return (requestId, kind)
    }

    /// What `request` is on this port, when it is not a click (nil).
    func kind(of request: Request) -> RelinkMetrics.RequestKind? {
        if servesConsoleOnly { return .console }
        return Self.kind(of: Substring(request.uri.path), method: request.method, servesMetrics: servesMetrics, servesConsole: servesConsole)
    }

    /// What a path is, when it is not a click (nil: the redirect controller counts it). Every request asks this, so
    /// paths are compared as bytes (`Substring.hasSuffix` compares grapheme clusters).
    static func kind(
        of path: Substring, method: HTTPRequest.Method, servesMetrics: Bool, servesConsole: Bool = false
    ) -> RelinkMetrics.RequestKind? {
        let bytes = path.utf8
        if APIPath.isAPI(path) { return .api }
        if servesConsole && RelinkPaths.isConsole(path) { return .console }
        if method == .post && bytes.count >= beaconPath.count && bytes.suffix(beaconPath.count).elementsEqual(beaconPath) {
            return .beacon
        }
        if servesMetrics && RelinkPaths.names(path, RelinkPaths.metrics) { return .metrics }
        // Only GET and HEAD reach the redirect controller; other methods on a link path are refused here.
        if method != .get && method != .head { return .unknownLink }
        // The files alone: another path below `/.well-known` is answered, and counted, as any path without a link.
        if RelinkPaths.associationFiles.contains(where: { RelinkPaths.names(path, $0) }) { return .association }
        if RelinkPaths.names(path, RelinkPaths.health) { return .health }
        return nil
    }

    private static let beaconPath = Array(BeaconController.path.utf8)

    /// 1 to 128 letters, digits and `-._:`: an id a proxy or client set, safe to echo and log.
    static func isPlainToken(_ value: String) -> Bool {
        let utf8 = value.utf8
        return (1...128).contains(utf8.count)
            && utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x3A
            }
    }
}
