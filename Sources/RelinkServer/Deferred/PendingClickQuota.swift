/// How many pending clicks each project holds, against its cap (`deferred.maxPendingClicks`): the store's count, taken
/// at start and after each purge, plus the clicks kept here since. Several instances each add only their own, so
/// together they can pass a cap by what they keep between two counts; the next count brings them back to it.
///
/// A count races the writes: a batch can commit after the store's count has read and leave the buffer before the count
/// ends, in neither figure. So a count starts (`beginCount`) before the buffer's clicks are read and the store is
/// asked, and ends (`finishCount`) adding the buffer's clicks at the start and every click kept meanwhile: a click can
/// count twice, which errs towards the cap, never past it.
struct PendingClickQuota: Sendable {
    enum Decision: Equatable, Sendable {
        case keep
        /// Not kept: the project holds its cap. `firstSinceCount` marks the first such click since the last count, so
        /// that the cap is logged once per count rather than once per click.
        case refuse(firstSinceCount: Bool)
    }

    /// Per project in routes.json; a project without one (removed since the click was planned) is not capped here.
    private let caps: [String: Int]
    private var held: [String: Int] = [:]
    private var refused: [String: Int] = [:]
    /// Per project with a count running: the clicks kept since it began.
    private var keptDuringCount: [String: Int] = [:]

    init(caps: [String: Int]) { self.caps = caps }

    func cap(of projectId: String) -> Int? { caps[projectId] }

    /// Whether a click of `projectId` is kept; a kept click counts as held from now on.
    mutating func admit(projectId: String) -> Decision {
        guard let cap = caps[projectId] else { return .keep }
        let count = held[projectId, default: 0]
        if count < cap {
            held[projectId] = count + 1
            if let kept = keptDuringCount[projectId] { keptDuringCount[projectId] = kept + 1 }
            return .keep
        }
        let before = refused[projectId, default: 0]
        refused[projectId] = before + 1
        return .refuse(firstSinceCount: before == 0)
    }

    /// Gives back what `admit` counted for clicks that never reach the store: dropped by the full buffer (else an
    /// outage would use up the cap until the next count). A failed write puts its clicks back, within the buffer's
    /// cap, which counts them while they are written, so nothing else is dropped.
    mutating func release(projectId: String, count: Int = 1) {
        guard let held = held[projectId] else { return }
        self.held[projectId] = max(0, held - count)
        if let kept = keptDuringCount[projectId] { keptDuringCount[projectId] = max(0, kept - count) }
    }

    /// Before a count reads the buffer and the store.
    mutating func beginCount(projectId: String) {
        keptDuringCount[projectId] = 0
    }

    /// A count that failed: what is held stays as it was, an upper bound but for what was purged meanwhile.
    mutating func abandonCount(projectId: String) {
        keptDuringCount[projectId] = nil
    }

    /// Ends a count with the store's figure (up to the cap) and the clicks the buffer held when it began; returns what
    /// is held now and the clicks refused since the last count.
    mutating func finishCount(projectId: String, stored: Int, waiting: Int) -> (held: Int, refused: Int) {
        let count = stored + waiting + (keptDuringCount.removeValue(forKey: projectId) ?? 0)
        held[projectId] = count
        return (count, refused.removeValue(forKey: projectId) ?? 0)
    }
}
