import Hummingbird
import RelinkCore

/// `POST /v1/installAttribution` (claiming a deferred link on first launch) and `POST /v1/reopenAttribution`
/// (resolving a link opened in the installed app). Apps call these without a key; a key, when sent, must be
/// the app's project's. Each client address is rate-limited, since anyone can call them.
struct AttributionController: Sendable {
    let service: DeferredLinkService
    let rateLimiter: RateLimiter<String>
    let forwardedHeaders: ForwardedHeaderPolicy

    /// Per client address: an app claims once per install, so this allows busy carrier NATs, not scanning.
    static let limit = RateLimit(requestsPerSecond: 20, burst: 100)
    /// Per client address, apart from claims: re-opens are counted, so a script may not report many.
    static let reopenLimit = RateLimit(requestsPerSecond: 2, burst: 60)

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.post(RouterPath(APIPath.installAttribution)) { request, context in try await install(request, context) }
        group.post(RouterPath(APIPath.reopenAttribution)) { request, context in try await reopen(request, context) }
    }

    private func origin(_ request: Request, _ context: RelinkRequestContext, reopen: Bool = false) throws -> RequestOrigin {
        let origin = RequestOrigin(request: request, remoteAddress: context.remoteAddress, policy: forwardedHeaders)
        let address = ClientNetwork.key(origin.clientAddress)
        let outcome =
            reopen
            ? rateLimiter.acquire(keyId: "reopen " + address, limit: Self.reopenLimit, limiting: "re-open reports from this address")
            : rateLimiter.acquire(keyId: address, limit: Self.limit, limiting: "deferred-link claims from this address")
        if case .failure(let error) = outcome { throw error }
        return origin
    }

    func install(_ request: Request, _ context: RelinkRequestContext) async throws -> InstallAttributionResponse {
        let origin = try origin(request, context)
        let caller = context.caller
        let body = try await JSONResponse.decode(InstallAttributionRequest.self, from: request, context: context)
        return try await service.claim(body, clientAddress: origin.clientAddress, keyProject: caller?.project)
    }

    func reopen(_ request: Request, _ context: RelinkRequestContext) async throws -> ReopenAttributionResponse {
        let origin = try origin(request, context, reopen: true)
        let caller = context.caller
        let body = try await JSONResponse.decode(ReopenAttributionRequest.self, from: request, context: context)
        return try await service.reopen(body, clientAddress: origin.clientAddress, keyProject: caller?.project)
    }
}
