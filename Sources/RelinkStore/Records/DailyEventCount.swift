import RelinkCore

/// One day's total for one platform and event: a point of the console's charts.
public struct DailyEventCount: Hashable, Sendable {
    /// Days since 1970-01-01, UTC.
    public var day: Int
    public var platform: StatsPlatform
    public var event: LinkEvent
    public var count: Int64

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(day: Int, platform: StatsPlatform, event: LinkEvent, count: Int64) {
        self.day = day
        self.platform = platform
        self.event = event
        self.count = count
    }
}
