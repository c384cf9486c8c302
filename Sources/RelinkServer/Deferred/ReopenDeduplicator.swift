import Foundation
import NIOConcurrencyHelpers

/// Decides whether a re-open is counted: once per opener (an install id, else the client's address), link and
/// hour, so that replayed or scripted calls to the public `reopenAttribution` cannot inflate `APP_RE_OPEN`.
///
/// In memory and capped: when `capacity` openers of the current hour are kept, further new ones are not counted
/// (an undercount under a flood rather than unbounded memory). Each instance keeps its own, so behind a load
/// balancer an opener may be counted once per instance in an hour.
final class ReopenDeduplicator: Sendable {
    struct Opener: Hashable {
        var linkId: Int64
        var who: String
    }

    private struct Hour {
        var number = 0
        var seen: Set<Opener> = []
    }

    private let hour = NIOLockedValueBox(Hour())
    let capacity: Int

    init(capacity: Int = 200_000) {
        self.capacity = capacity
    }

    /// True the first time `who` re-opens `linkId` in the hour of `date`.
    func shouldCount(linkId: Int64, who: String, at date: Date = Date()) -> Bool {
        let number = Int(date.timeIntervalSince1970 / 3600)
        return hour.withLockedValue { hour in
            if hour.number != number { hour = Hour(number: number) }
            guard hour.seen.count < capacity else { return false }
            return hour.seen.insert(Opener(linkId: linkId, who: who)).inserted
        }
    }
}
