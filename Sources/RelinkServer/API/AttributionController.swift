import Hummingbird
import RelinkCore

/// `POST /v1/installAttribution` (claiming a deferred link on first launch) and `POST /v1/reopenAttribution`
/// (resolving a link opened in the installed app). Apps call these without a key; a key, when sent, must be
/// the app's project's. Each client address is rate-limited, since anyone can call them.
struct AttributionController: Sendable {
    let service: DeferredLinkService
    let limiter: ClientLimiter
    let forwardedHeaders: ForwardedHeaderPolicy
    let metrics: RelinkMetrics?

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.post(RouterPath(APIPath.installAttribution)) { request, context in try await install(request, context) }
        group.post(RouterPath(APIPath.reopenAttribution)) { request, context in try await reopen(request, context) }
    }

    private func origin(_ request: Request, _ context: RelinkRequestContext, reopen: Bool = false) throws -> RequestOrigin {
        let origin = RequestOrigin(request: request, remoteAddress: context.remoteAddress, policy: forwardedHeaders)
        if case .failure(let error) = limiter.acquire(reopen ? .reopen : .claim, clientAddress: origin.clientAddress) { throw error }
        return origin
    }

    func install(_ request: Request, _ context: RelinkRequestContext) async throws -> InstallAttributionResponse {
        let origin = try origin(request, context)
        let caller = context.caller
        let body = try await JSONResponse.decode(InstallAttributionRequest.self, from: request, context: context)
        let answer = try await service.claim(body, clientAddress: origin.clientAddress, keyProject: caller?.project)
        metrics?.claimAnswered(answer.attributionConfidence)
        return answer
    }

    func reopen(_ request: Request, _ context: RelinkRequestContext) async throws -> ReopenAttributionResponse {
        let origin = try origin(request, context, reopen: true)
        let caller = context.caller
        let body = try await JSONResponse.decode(ReopenAttributionRequest.self, from: request, context: context)
        return try await service.reopen(body, clientAddress: origin.clientAddress, keyProject: caller?.project)
    }
}
