import Foundation
import RelinkCore

/// One per-day counter: how many `event`s on `platform` a link had on `day`.
public struct EventCounterKey: Hashable, Sendable {
    public var linkId: Int64
    /// Days since 1970-01-01, UTC.
    public var day: Int
    public var platform: StatsPlatform
    public var event: LinkEvent

    public init(linkId: Int64, day: Int, platform: StatsPlatform, event: LinkEvent) {
        self.linkId = linkId
        self.day = day
        self.platform = platform
        self.event = event
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
