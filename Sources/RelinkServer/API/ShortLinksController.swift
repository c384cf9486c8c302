import Hummingbird
import RelinkCore
import RelinkStore

/// `POST /v1/shortLinks`: FDL's request and response, rate-limited per API key.
struct ShortLinksController: Sendable {
    let service: ShortLinkService
    let rateLimiter: RateLimiter<Int64>
    let metrics: RelinkMetrics?

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.post(RouterPath(APIPath.shortLinks)) { request, context in try await create(request, context) }
    }

    func create(_ request: Request, _ context: RelinkRequestContext) async throws -> CreateShortLinkResponse {
        let caller = try context.requireCaller()
        if case .failure(let error) = rateLimiter.acquire(
            keyId: caller.key.id, limit: caller.project.rateLimit, limiting: "minting with this API key")
        {
            metrics?.rateLimited("mint")
            throw error
        }
        let body = try await request.decode(as: CreateShortLinkRequest.self, context: context)
        let (record, warnings) = try await service.mint(body, caller: caller)
        return CreateShortLinkResponse(
            shortLink: record.shortLink, previewLink: record.shortLink + "?" + APIPath.debugQuery, warning: warnings.map(APIWarning.init))
    }
}
