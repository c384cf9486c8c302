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

    public init(linkId: Int64, day: Int, platform: StatsPlatform, event: LinkEvent, variant: String? = nil) {
        self.linkId = linkId
        self.day = day
        self.platform = platform
        self.event = event
        self.variant = variant
    }

    /// The counts as the stores write them: totals per link, day, platform and event (variants summed), and the
    /// per-variant counts apart.
    public static func split(_ counts: [EventCounterKey: Int64]) -> (totals: [EventCounterKey: Int64], variants: [EventCounterKey: Int64]) {
        var totals: [EventCounterKey: Int64] = [:]
        var variants: [EventCounterKey: Int64] = [:]
        for (key, count) in counts {
            var total = key
            total.variant = nil
            totals[total, default: 0] += count
            if key.variant != nil { variants[key, default: 0] += count }
        }
        return (totals, variants)
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
