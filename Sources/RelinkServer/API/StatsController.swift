import Foundation
import Hummingbird
import RelinkCore
import RelinkStore

/// `GET /v1/{shortLink}/linkStats?durationDays=N`: FDL's `linkEventStats`, read from per-day counters.
struct StatsController: Sendable {
    let service: ShortLinkService
    let recorder: EventRecorder

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.get(RouterPath(":shortLink/\(APIPath.linkStats)")) { request, context in try await stats(request, context) }
    }

    func stats(_ request: Request, _ context: RelinkRequestContext) async throws -> LinkStatsResponse {
        let caller = try context.requireCaller()
        let record = try await service.storedLink(try LinksController.shortLinkParameter(context), caller: caller)
        guard let text = request.uri.queryParameters.get("durationDays") else {
            throw APIError.invalidArgument("durationDays is required: the number of days, up to today, to count.")
        }
        let days = try LinksController.integer(text, name: "durationDays", default: 1, in: 1...36_500)
        // Counters still in memory count too: stats never lag behind clicks (a 503 when they could not be written).
        guard await recorder.flush() else { throw StoreError.unavailable("the clicks in memory could not be written") }
        let fromDay = EventCounterKey.day(of: Date()) - days + 1
        let counts = try await service.store.eventCounts(linkId: record.id, fromDay: fromDay)
        let includeCrawlers = request.uri.queryParameters.get("includeCrawlers") == "true"
        let shadows = try await service.store.shadowMatches(projectId: record.projectId, fromDay: fromDay)
        let variants = try await service.store.variantEventCounts(linkId: record.id, fromDay: fromDay)
            .filter { includeCrawlers || $0.platform != .crawler }
        return LinkStatsResponse(
            linkEventStats: counts.filter { includeCrawlers || $0.platform != .crawler }.map {
                LinkStatsResponse.EventStat(platform: $0.platform, event: $0.event, count: $0.count)
            },
            attributionEstimate: AttributionEstimate(
                days: days, decisions: shadows.map { (confidence: $0.confidence, sameClick: $0.sameClick, count: $0.count) }),
            variantEventStats: variants.isEmpty
                ? nil
                : variants.map {
                    LinkStatsResponse.VariantEventStat(variant: $0.variant, platform: $0.platform, event: $0.event, count: $0.count)
                })
    }
}
