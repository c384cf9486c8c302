import Foundation

/// How busy an address has been over the last `AttributionMatcher.crowdPeriod`: its clicks on any platform, claimed
/// or not, and those from the install's platform, OS version and device.
///
/// It is counted over at most `countedClicks` of the address's most recent clicks, so that a claim from a carrier
/// NAT's address costs what one from a home's does. An address past that bound is crowded by definition: its day is
/// estimated from the rate of the clicks counted (`estimated(now:window:period:)`), which keeps it crowded in the matcher's eyes.
public struct AddressActivity: Sendable, Equatable {
    /// The most clicks of one address counted for one claim.
    public static let countedClicks = 1_000

    /// The clicks counted, at most the bound the store was given.
    public var clicks: Int
    /// Of those, the ones alike the install.
    public var similarClicks: Int
    /// Of those, the ones made in the claim's fingerprint window: past the candidate bound, how crowded the window
    /// is (the candidates read stop at the bound).
    public var recentClicks: Int
    /// When the count stopped at its bound: the time of the oldest click counted. Nil when every click of the
    /// period was counted.
    public var oldestCounted: Date?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(clicks: Int, similarClicks: Int, recentClicks: Int = 0, oldestCounted: Date? = nil) {
        self.clicks = clicks
        self.similarClicks = similarClicks
        self.recentClicks = recentClicks
        self.oldestCounted = oldestCounted
    }

    /// The period's clicks: the count itself, or, when it stopped at its bound, the rate of the clicks counted over
    /// the whole period. A rate measured over the latest clicks may miss a busier morning; it never makes a crowded
    /// address look quiet, since it is at least the bound.
    /// The window's clicks likewise: as counted, unless every counted click is in the window (`window` seconds before
    /// `now`), when they are its rate over the window.
    public func estimated(now: Date, window: TimeInterval, period: TimeInterval = AttributionMatcher.crowdPeriod) -> AddressActivity {
        guard let oldestCounted else { return self }
        let span = max(1, now.timeIntervalSince(oldestCounted))
        let scale = max(1, period / span)
        let recentScale = span <= window ? max(1, window / span) : 1
        return AddressActivity(
            clicks: Int(Double(clicks) * scale), similarClicks: Int(Double(similarClicks) * scale),
            recentClicks: Int(Double(recentClicks) * recentScale))
    }

    /// Activity under several keys of one address (the current secret's hash and a previous one's), each estimated.
    public static func + (lhs: AddressActivity, rhs: AddressActivity) -> AddressActivity {
        AddressActivity(
            clicks: lhs.clicks + rhs.clicks, similarClicks: lhs.similarClicks + rhs.similarClicks, recentClicks: lhs.recentClicks + rhs.recentClicks)
    }
}
