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
        let (days, includeCrawlers) = try Self.options(request.uri.queryParameters)
        // Counters still in memory count too: stats never lag behind clicks (a 503 when they could not be written).
        guard await recorder.flush() else { throw StoreError.unwrittenClicks }
        let fromDay = EventCounterKey.day(of: Date()) - days + 1
        let counts = try await service.store.eventCounts(linkId: record.id, fromDay: fromDay)
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

    /// The days `durationDays` may count: up to a century.
    static let durations = 1...36_500

    /// `durationDays` and `includeCrawlers` as the API documents them, a 400 otherwise: digits only (`+7` is not a
    /// number of days to a client that would send it), `true` or `false` (`maybe` is not false), each given once.
    static func options(_ query: Parameters) throws -> (days: Int, includeCrawlers: Bool) {
        let given = query.getAll("durationDays")
        guard let text = given.first else {
            throw APIError.invalidArgument("durationDays is required: the number of days, up to today, to count.")
        }
        let crawlers = query.getAll("includeCrawlers")
        guard given.count == 1, crawlers.count <= 1 else {
            throw APIError.invalidArgument("durationDays and includeCrawlers may each be given once.")
        }
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw APIError.invalidArgument(
                "durationDays must be a whole number from \(Self.durations.lowerBound) to \(Self.durations.upperBound), got '\(text.leadingScalars(40))'."
            )
        }
        let days = try LinksController.integer(text, name: "durationDays", default: 1, in: Self.durations)
        switch crawlers.first {
        case nil, "false": return (days, false)
        case "true": return (days, true)
        case let other?: throw APIError.invalidArgument("includeCrawlers must be true or false, got '\(other.leadingScalars(40))'.")
        }
    }
}
