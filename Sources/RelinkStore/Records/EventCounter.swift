import Foundation
import RelinkCore

/// One per-day counter: how many `event`s on `platform` a link had on `day`.
public struct EventCounterKey: Hashable, Sendable {
    public var linkId: Int64
    /// Days since 1970-01-01, UTC.
    public var day: Int
    public var platform: StatsPlatform
    public var event: LinkEvent
    /// The A/B variant the click was given; nil for a link without variants.
    public var variant: String?
    /// For an install: how surely it was matched to the click (the console's confidence mix).
    public var confidence: AttributionConfidence?

    public init(
        linkId: Int64, day: Int, platform: StatsPlatform, event: LinkEvent, variant: String? = nil, confidence: AttributionConfidence? = nil
    ) {
        self.linkId = linkId
        self.day = day
        self.platform = platform
        self.event = event
        self.variant = variant
        self.confidence = confidence
    }

    /// The counters' primary key order (link, day, platform, event), then the variant's. The strings are compared
    /// only between rows of one link and day: building them for every comparison made sorting a second's counters
    /// over many links much of the writer's time (docs/performance.md#batched-writes-bound-by-hand-and-sorted).
    public static func inKeyOrder(_ a: Self, _ b: Self) -> Bool {
        if a.linkId != b.linkId { return a.linkId < b.linkId }
        if a.day != b.day { return a.day < b.day }
        let (variantA, variantB) = (a.variant ?? "", b.variant ?? "")
        if variantA != variantB { return variantA < variantB }
        if a.platform != b.platform { return a.platform.rawValue < b.platform.rawValue }
        return a.event.rawValue < b.event.rawValue
    }

    /// The counts as the stores write them: totals per link, day, platform and event (variants and confidences
    /// summed), the per-variant counts apart, and installs per link, day and confidence.
    public static func split(
        _ counts: [EventCounterKey: Int64]
    ) -> (totals: [EventCounterKey: Int64], variants: [EventCounterKey: Int64], confidences: [ConfidenceKey: Int64]) {
        var totals: [EventCounterKey: Int64] = [:]
        var variants: [EventCounterKey: Int64] = [:]
        var confidences: [ConfidenceKey: Int64] = [:]
        for (key, count) in counts {
            var total = key
            total.variant = nil
            total.confidence = nil
            totals[total, default: 0] += count
            if key.variant != nil {
                var variant = key
                variant.confidence = nil
                variants[variant, default: 0] += count
            }
            if let confidence = key.confidence, key.event == .appInstall {
                confidences[ConfidenceKey(linkId: key.linkId, day: key.day, confidence: confidence), default: 0] += count
            }
        }
        return (totals, variants, confidences)
    }

    /// One row of the confidence counters.
    public struct ConfidenceKey: Hashable, Sendable, Comparable {
        public var linkId: Int64
        public var day: Int
        public var confidence: AttributionConfidence

        public static func < (a: Self, b: Self) -> Bool {
            (a.linkId, a.day, a.confidence.rawValue) < (b.linkId, b.day, b.confidence.rawValue)
        }
    }

    /// The UTC day of `date`.
    public static func day(of date: Date) -> Int {
        Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
    }
}

/// A link's total for one platform and event over some days.
public struct EventCount: Hashable, Sendable {
    public var platform: StatsPlatform
    public var event: LinkEvent
    public var count: Int64

    public init(platform: StatsPlatform, event: LinkEvent, count: Int64) {
        self.platform = platform
        self.event = event
        self.count = count
    }
}

/// A link's total for one variant, platform and event over some days.
public struct VariantEventCount: Hashable, Sendable {
    public var variant: String
    public var platform: StatsPlatform
    public var event: LinkEvent
    public var count: Int64

    public init(variant: String, platform: StatsPlatform, event: LinkEvent, count: Int64) {
        self.variant = variant
        self.platform = platform
        self.event = event
        self.count = count
    }
}
