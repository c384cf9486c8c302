/// Per-day event counters, so that statistics over tens of millions of clicks read a few rows.
public protocol EventRepository: Sendable {
    /// Adds `counts` to the stored counters (creating them as needed) in one transaction.
    func addEventCounts(_ counts: [EventCounterKey: Int64]) async throws
    /// A link's totals per platform and event from `fromDay` on; only non-zero pairs.
    func eventCounts(linkId: Int64, fromDay: Int) async throws -> [EventCount]
    /// A link's totals per A/B variant, platform and event from `fromDay` on; only non-zero ones.
    func variantEventCounts(linkId: Int64, fromDay: Int) async throws -> [VariantEventCount]
    /// A link's human clicks ever (crawlers left out): what a click limit compares with.
    func clickCount(linkId: Int64) async throws -> Int64
    /// Totals per day, platform and event of a link or a project, from `fromDay` to `toDay` included; only non-zero
    /// ones, by day.
    func dailyEventCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [DailyEventCount]
    /// Installs matched to their clicks per day and confidence, of a link or a project, from `fromDay` to `toDay`.
    func confidenceCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [ConfidenceCount]
    /// Human clicks (crawlers left out) of each of `linkIds` from `fromDay` on; links without any are absent.
    func clickCounts(linkIds: [Int64], fromDay: Int) async throws -> [Int64: Int64]
}
