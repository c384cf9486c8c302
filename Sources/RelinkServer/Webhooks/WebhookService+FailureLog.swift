import NIOConcurrencyHelpers

extension WebhookService {
    /// Which failed deliveries are logged: a webhook's first in each 10 seconds, with the count left out since.
    /// Bounded: past `capacity` webhooks it starts again from empty (a line too many, never unbounded memory).
    final class FailureLog: Sendable {
        private struct Entry {
            var lastLogged: ContinuousClock.Instant
            var unlogged: Int
        }
        private let entries = NIOLockedValueBox([Int64: Entry]())
        let interval: Duration
        let capacity: Int

        init(interval: Duration = .seconds(10), capacity: Int = 10_000) {
            self.interval = interval
            self.capacity = capacity
        }

        /// The failures of `webhook` left out since its last line when this one is to be logged, else nil.
        func shouldLog(_ webhook: Int64, now: ContinuousClock.Instant = .now) -> Int? {
            entries.withLockedValue { entries in
                if let entry = entries[webhook], now - entry.lastLogged < interval {
                    entries[webhook]?.unlogged += 1
                    return nil
                }
                if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
                let unlogged = entries[webhook]?.unlogged ?? 0
                entries[webhook] = Entry(lastLogged: now, unlogged: 0)
                return unlogged
            }
        }
    }
}
