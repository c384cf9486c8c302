import NIOConcurrencyHelpers

/// Which of a repeated failure's lines are logged: per key (a webhook, an email service's upstream), the first in
/// each interval, with the count left out since. A failure that clients can cause at their request rate (a receiver
/// failing at once, a forged loop mark, an upstream that is down) would otherwise fill the disk with lines.
/// Bounded: past `capacity` keys it starts again from empty (a line too many, never unbounded memory).
final class ThrottledLog<Key: Hashable & Sendable>: Sendable {
    private struct Entry {
        var lastLogged: ContinuousClock.Instant
        var unlogged: Int
    }
    private let entries = NIOLockedValueBox([Key: Entry]())
    let interval: Duration
    let capacity: Int

    init(interval: Duration = .seconds(10), capacity: Int = 10_000) {
        self.interval = interval
        self.capacity = capacity
    }

    /// The failures of `key` left out since its last line when this one is to be logged, else nil.
    func shouldLog(_ key: Key, now: ContinuousClock.Instant = .now) -> Int? {
        entries.withLockedValue { entries in
            if let entry = entries[key], now - entry.lastLogged < interval {
                entries[key]?.unlogged += 1
                return nil
            }
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            let unlogged = entries[key]?.unlogged ?? 0
            entries[key] = Entry(lastLogged: now, unlogged: 0)
            return unlogged
        }
    }

    /// `message` with the count left out, when it is to be logged (`" (and 5 more in the last 10 s)"`), else nil.
    func line(_ key: Key, _ message: String, now: ContinuousClock.Instant = .now) -> String? {
        guard let unlogged = shouldLog(key, now: now) else { return nil }
        return unlogged == 0 ? message : "\(message) (and \(unlogged) more in the last \(interval.components.seconds) s)"
    }
}
