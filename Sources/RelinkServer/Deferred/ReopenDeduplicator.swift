import Foundation
import NIOConcurrencyHelpers

/// Decides whether a re-open is counted: once per opener (an install id, else the client's address), link and
/// hour, so that replayed or scripted calls to the public `reopenAttribution` cannot inflate `APP_RE_OPEN`. Install
/// ids are the caller's to choose, so each client network also counts at most `installsPerNetwork` installs per
/// link and hour: a carrier NAT's real users still count, a script inventing ids does not.
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
        /// Per link and client network: the installs counted this hour.
        var installsPerNetwork: [Opener: Int] = [:]
    }

    private let hour = NIOLockedValueBox(Hour())
    let capacity: Int
    let installsPerNetwork: Int

    init(capacity: Int = 200_000, installsPerNetwork: Int = 20) {
        self.capacity = capacity
        self.installsPerNetwork = installsPerNetwork
    }

    /// True the first time `installId` (else `network`) re-opens `linkId` in the hour of `date`, while `network`
    /// has counted fewer than `installsPerNetwork` installs of that link this hour.
    /// - Parameters:
    ///   - network: the client's network, hashed (an IPv4 address, an IPv6 /64).
    func shouldCount(linkId: Int64, installId: String?, network: String, at date: Date = Date()) -> Bool {
        let number = Int(date.timeIntervalSince1970 / 3600)
        return hour.withLockedValue { hour in
            if hour.number != number { hour = Hour(number: number) }
            guard hour.seen.count + hour.installsPerNetwork.count < capacity else { return false }
            guard let installId else { return hour.seen.insert(Opener(linkId: linkId, who: "network:" + network)).inserted }
            let opener = Opener(linkId: linkId, who: "install:" + installId)
            guard !hour.seen.contains(opener) else { return false }
            let key = Opener(linkId: linkId, who: network)
            let counted = hour.installsPerNetwork[key, default: 0]
            guard counted < installsPerNetwork else { return false }
            hour.installsPerNetwork[key] = counted + 1
            hour.seen.insert(opener)
            return true
        }
    }
}
