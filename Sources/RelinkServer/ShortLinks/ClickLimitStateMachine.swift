/// What a click on a link with a click limit does next (`ClickLimitStateMachine`).
enum ClickLimitAction: Equatable {
    /// The click may follow the link (and took one of its clicks, if it takes one).
    case allow
    /// The link has reached its limit.
    case refuse
    /// The caller reads the link's count and reports `readSucceeded` or `readFailed`.
    case read
    /// The first read of the link runs: the caller waits (`wait`) for its answer.
    case wait
    /// No room to hold the link: the caller decides from a read of its own (`readCount < limit`).
    case readUntracked
}

/// The click limits of links, by link id, however many `ResolvedShortLink` instances a cache miss makes of a link.
///
/// A link's count is its human clicks as read from the store (with this instance's unwritten ones), read at most
/// once a second, plus the clicks taken here since. The first click on a link reads, and the clicks arriving while
/// that read runs wait for it; later, one click reads when the count is a second old while the others go on with the
/// count as it is (exact for this instance: every click it let through is in it). A read merges with what was known,
/// so clicks taken here meanwhile are never lost (other instances' clicks are what a read adds).
///
/// Pure: `ClickLimits` reads the store and resumes the waiters as the actions say. At most `capacity` links of each
/// project are held, so that one project's links (a key holder's own, clicked by the thousand) never crowd out another
/// project's; to make room, links without a click in the last second go (their clicks are recorded by then, so a new
/// read counts them).
struct ClickLimitStateMachine<Waiter: Sendable>: Sendable {
    private struct Entry {
        /// The link's human clicks as last read, merged with what was known then.
        var known: Int64 = 0
        /// When the read started; nil until the first read ends.
        var readAt: ContinuousClock.Instant?
        /// Clicks taken here since the read.
        var since: Int64 = 0
        var reading = true
        /// Clicks waiting for the first read.
        var waiters: [(waiter: Waiter, limit: Int64, taking: Bool)] = []
        var lastClick: ContinuousClock.Instant
        let projectId: String
        /// The link's version (its record's last change) the count is for: a click of another version reads again,
        /// since clicks made while the link had no limit, or was disabled, did not come through here.
        var version: Double
        /// The version the running read was started for.
        var readVersion: Double

        /// Whether a click may follow the link, taking one of its clicks when `taking`.
        mutating func take(limit: Int64, taking: Bool) -> ClickLimitAction {
            guard known + since < limit else { return .refuse }
            if taking { since += 1 }
            return .allow
        }
    }

    /// How long a read is good for.
    static var freshness: Duration { .seconds(1) }

    /// The shortest time between two looks through a full table for idle links.
    static var sweepInterval: Duration { .milliseconds(10) }

    /// The most links held for one project.
    let capacity: Int
    private var entries: [Int64: Entry] = [:]
    /// Links held per project.
    private var held: [String: Int] = [:]
    /// No held link can be idle before this (the last look's soonest, at least `sweepInterval` on): until then a full
    /// table answers a new link at once, rather than looking through every link again for each click.
    private var nextSweep: ContinuousClock.Instant?
    /// Looks through the table so far (for tests).
    private(set) var sweeps = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Links held now.
    var count: Int { entries.count }

    /// A click on link `linkId` of project `projectId` as of `version` (its record's last change; its limit `limit`),
    /// which takes one of the limit's clicks when `taking` (a human's, not a crawler's, HEAD, a check or the debug page).
    mutating func click(
        linkId: Int64, projectId: String, version: Double, limit: Int64, taking: Bool, now: ContinuousClock.Instant
    ) -> ClickLimitAction {
        guard let index = entries.index(forKey: linkId) else {
            if held[projectId, default: 0] >= capacity, nextSweep.map({ now >= $0 }) ?? true { removeIdle(now: now) }
            guard held[projectId, default: 0] < capacity else { return .readUntracked }
            entries[linkId] = Entry(lastClick: now, projectId: projectId, version: version, readVersion: version)
            held[projectId, default: 0] += 1
            return .read
        }
        entries.values[index].lastClick = now
        if entries.values[index].version != version {
            // Changed since its count was read (its limit removed and set again, disabled and enabled): the clicks
            // meanwhile are only in the store and the recorder, so every click waits for a new read, as a first read.
            // What was known stays as the floor the read is merged with.
            entries.values[index].version = version
            entries.values[index].readAt = nil
            guard !entries.values[index].reading else { return .wait }
            entries.values[index].reading = true
            entries.values[index].readVersion = version
            return .read
        }
        guard let readAt = entries.values[index].readAt else { return .wait }
        if entries.values[index].reading || now - readAt < Self.freshness {
            return entries.values[index].take(limit: limit, taking: taking)
        }
        entries.values[index].reading = true
        entries.values[index].readVersion = version
        return .read
    }

    /// A click told to `.wait` waits with `waiter`; what to do if the read ended meanwhile (`.wait`: `waiter` is kept).
    mutating func wait(
        linkId: Int64, projectId: String, version: Double, limit: Int64, taking: Bool, waiter: Waiter, now: ContinuousClock.Instant
    ) -> ClickLimitAction {
        guard let index = entries.index(forKey: linkId), entries.values[index].readAt == nil else {
            // The read ended before the click came back (or failed, and the link went): as a new click.
            return click(linkId: linkId, projectId: projectId, version: version, limit: limit, taking: taking, now: now)
        }
        entries.values[index].waiters.append((waiter, limit, taking))
        return .wait
    }

    /// The read started at `start` found `count` clicks: the reading click's answer, and its waiters' answers; `.read`
    /// when the link changed while it ran (the reading click reads again, its waiters wait on).
    mutating func readSucceeded(
        linkId: Int64, count: Int64, start: ContinuousClock.Instant, limit: Int64, taking: Bool
    ) -> (ClickLimitAction, resume: [(Waiter, ClickLimitAction)]) {
        guard let index = entries.index(forKey: linkId) else {
            return (count < limit ? .allow : .refuse, [])
        }
        // Never below what was known with the clicks taken since: the read may not have seen them yet.
        entries.values[index].known = max(count, entries.values[index].known + entries.values[index].since)
        entries.values[index].since = 0
        guard entries.values[index].readVersion == entries.values[index].version else {
            // Started before the change: clicks made since, around the table, may be missing from it.
            entries.values[index].readVersion = entries.values[index].version
            return (.read, [])
        }
        entries.values[index].readAt = start
        entries.values[index].reading = false
        let action = entries.values[index].take(limit: limit, taking: taking)
        let waiters = entries.values[index].waiters
        guard !waiters.isEmpty else { return (action, []) }
        entries.values[index].waiters = []
        var resume: [(Waiter, ClickLimitAction)] = []
        resume.reserveCapacity(waiters.count)
        for (waiter, limit, taking) in waiters { resume.append((waiter, entries.values[index].take(limit: limit, taking: taking))) }
        return (action, resume)
    }

    /// The read failed: its waiters fail too (the next click reads again).
    mutating func readFailed(linkId: Int64) -> [Waiter] {
        guard let index = entries.index(forKey: linkId) else { return [] }
        let waiters = entries.values[index].waiters.map(\.waiter)
        if entries.values[index].readAt == nil {
            held[entries.values[index].projectId, default: 1] -= 1
            entries.remove(at: index)
        } else {
            entries.values[index].reading = false
            entries.values[index].waiters = []
        }
        return waiters
    }

    /// Lets go of the links without a click in the last second and no read running.
    private mutating func removeIdle(now: ContinuousClock.Instant) {
        sweeps += 1
        entries = entries.filter { $0.value.reading || now - $0.value.lastClick < Self.freshness }
        held = [:]
        for entry in entries.values { held[entry.projectId, default: 0] += 1 }
        // A link's clicks only move its idle time later; one whose read runs may end it any time.
        let soonest = entries.values.lazy.map { $0.reading ? now : $0.lastClick + Self.freshness }.min() ?? now
        nextSweep = max(soonest, now + Self.sweepInterval)
    }
}
