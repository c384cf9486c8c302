import Crypto
import Foundation
import Hummingbird
import RelinkCore
import RelinkStore

/// `GET /v1/{shortLink}/deferredClicks?limit=N`: a short link's clicks kept for deferred linking and their claims,
/// for the key's project only, so a developer can watch a test click being claimed (`relink deferred test`).
/// Neither click ids (claim tokens) nor address hashes leave the server; a click is named by a one-way `ref`.
struct DeferredClicksController: Sendable {
    let service: ShortLinkService
    let deferredRecorder: DeferredClickRecorder

    static let maximumLimit = 100

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.get(RouterPath(":shortLink/\(APIPath.deferredClicks)")) { request, context in try await clicks(request, context) }
    }

    /// A click's handle in listings: 48 bits of its id's SHA-256, enough to tell a link's clicks apart, useless for
    /// claiming.
    static func ref(_ clickID: String) -> String {
        Hex.string(SHA256.hash(data: Data(clickID.utf8)).prefix(6))
    }

    func clicks(_ request: Request, _ context: RelinkRequestContext) async throws -> DeferredClicksResponse {
        let caller = try context.requireCaller()
        let record = try await service.storedLink(try LinksController.shortLinkParameter(context), caller: caller)
        let limit = try LinksController.integer(request.uri.queryParameters.get("limit"), name: "limit", default: 20, in: 1...Self.maximumLimit)
        // Clicks a moment old may still be in memory (a 503 when they could not be written).
        guard await deferredRecorder.flush() else { throw StoreError.unwrittenPendingClicks }
        let clicks = try await service.store.linkClicks(linkId: record.id, limit: limit)
        return DeferredClicksResponse(
            clicks: clicks.map { click in
                let f = click.fingerprint
                return .init(
                    ref: Self.ref(click.id), platform: click.platform, clickedAt: APITime.format(click.createdAt), osVersion: f.osVersion,
                    device: f.device,
                    languages: f.languages, screen: f.screen, timeZone: f.timeZone, claimedAt: click.claimedAt.map(APITime.format),
                    confidence: click.claimedAt == nil ? nil : click.confidence)
            })
    }
}
