import Hummingbird
import RelinkCore

/// `POST /v1/installAttribution` (claiming a deferred link on first launch) and `POST /v1/reopenAttribution`
/// (resolving a link opened in the installed app). Apps call these without a key; a key, when sent, must be
/// the app's project's. Each client address is rate-limited, since anyone can call them; any origin may call them
/// from a browser (`PublicCORSMiddleware`).
struct AttributionController: Sendable {
    let service: DeferredLinkService
    let limiter: ClientLimiter
    let metrics: RelinkMetrics?

    func addRoutes(to group: RouterGroup<RelinkRequestContext>, outages: StoreOutageLog?) {
        let apps = group.group().add(middleware: PublicCORSMiddleware(outages: outages))
        apps.post(RouterPath(APIPath.installAttribution)) { request, context in try await install(request, context) }
        apps.post(RouterPath(APIPath.reopenAttribution)) { request, context in try await reopen(request, context) }
        // Routes of their own so that the router takes the preflight; the middleware answers it.
        for path in [APIPath.installAttribution, APIPath.reopenAttribution] {
            apps.on(RouterPath(path), method: .options) { _, _ in Response(status: .noContent, headers: PublicCORSMiddleware.preflight) }
        }
    }

    /// Takes one of the client network's claims or re-opens, or throws the 429.
    private func limit(_ context: RelinkRequestContext, reopen: Bool = false) throws {
        if case .failure(let error) = limiter.acquire(reopen ? .reopen : .claim, network: context.clientNetwork) { throw error }
    }

    func install(_ request: Request, _ context: RelinkRequestContext) async throws -> InstallAttributionResponse {
        try limit(context)
        let origin = context.origin
        let caller = context.caller
        let body = try await request.decode(as: InstallAttributionRequest.self, context: context)
        let answer = try await service.claim(body, clientAddress: origin.clientAddress, keyProject: caller?.project)
        metrics?.claimAnswered(answer.attributionConfidence)
        return answer
    }

    func reopen(_ request: Request, _ context: RelinkRequestContext) async throws -> ReopenAttributionResponse {
        try limit(context, reopen: true)
        let origin = context.origin
        let caller = context.caller
        let body = try await request.decode(as: ReopenAttributionRequest.self, context: context)
        return try await service.reopen(
            body, clientAddress: origin.clientAddress, keyProject: caller?.project, userAgent: request.headers[.userAgent])
    }
}
