import RelinkCore
import RelinkStore

/// The pending clicks waiting for the store: at most `capacity` clicks and about `maximumBytes` of them, counting those
/// being written (they come back if the write fails).
struct PendingClickBuffer: WriteBuffer {
    /// A batch to write, and the index of its clicks, released after the lock (freeing a batch's click ids under it
    /// held back the clicks arriving meanwhile).
    struct Batch: Sendable {
        var clicks: [PendingClick]
        var positions: [String: Int]
    }

    let capacity: Int
    let maximumBytes: Int
    private(set) var clicks: [PendingClick] = []
    /// Where each buffered click is in `clicks`, so a beacon finds its click in O(1).
    private var positions: [String: Int] = [:]
    /// About how much memory `clicks` holds.
    private var bytes = 0
    /// Clicks taken by a write that has not ended yet.
    private(set) var writing = 0
    /// About how much memory those clicks hold: they stay in memory until the write ends.
    private var writingBytes = 0
    /// Clicks dropped because the buffer was full, since the start.
    private(set) var dropped = 0
    /// Per project, the clicks in `clicks` and those being written: not in the store yet, so the count behind the cap
    /// of pending clicks adds them (`waiting(projectId:)`).
    private var bufferedByProject: [String: Int] = [:]
    private var writingByProject: [String: Int] = [:]

    init(capacity: Int, maximumBytes: Int) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(1, maximumBytes)
    }

    /// A click's weight: its link, and a generous allowance for the rest.
    static func size(_ click: PendingClick) -> Int { click.requestedLink.utf8.count + 512 }

    private func hasRoom(for click: PendingClick) -> Bool {
        clicks.count + writing < capacity && bytes + writingBytes + Self.size(click) <= maximumBytes
    }

    /// Buffers a click, or drops (and counts) it when the buffer is full: O(1) either way.
    mutating func record(_ click: PendingClick) -> RecordAction {
        guard hasRoom(for: click) else {
            dropped += 1
            return .dropped
        }
        positions[click.id] = clicks.count
        clicks.append(click)
        bytes += Self.size(click)
        bufferedByProject[click.projectId, default: 0] += 1
        return .kept
    }

    /// What the preview page measured, merged into the buffered click `clickId`; false when it is not buffered here.
    mutating func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) -> Bool {
        guard let index = positions[clickId] else { return false }
        if let screen { clicks[index].fingerprint.screen = screen }
        if let timeZone { clicks[index].fingerprint.timeZone = timeZone }
        if !languages.isEmpty { clicks[index].fingerprint.languages = languages }
        return true
    }

    mutating func takeBatch() -> Batch {
        let taken = Batch(clicks: clicks, positions: positions)
        writing = clicks.count
        writingBytes = bytes
        clicks = []
        clicks.reserveCapacity(taken.clicks.count)
        positions = Dictionary(minimumCapacity: taken.positions.count)
        bytes = 0
        writingByProject = bufferedByProject
        bufferedByProject = [:]
        return taken
    }

    mutating func writeSucceeded() {
        writing = 0
        writingBytes = 0
        writingByProject = [:]
    }

    /// A project's clicks not in the store yet: buffered, or in a write that has not ended.
    func waiting(projectId: String) -> Int {
        bufferedByProject[projectId, default: 0] + writingByProject[projectId, default: 0]
    }

    /// Puts back a batch that could not be written, before what arrived since, keeping what fits in `capacity` clicks
    /// and `maximumBytes` (once per failed write, not per click); returns the clicks dropped.
    mutating func writeFailed(_ batch: Batch) -> Int {
        writing = 0
        writingBytes = 0
        let before = dropped
        let all = batch.clicks + clicks
        clicks.removeAll(keepingCapacity: true)
        bytes = 0
        for click in all {
            if hasRoom(for: click) {
                clicks.append(click)
                bytes += Self.size(click)
            } else {
                dropped += 1
            }
        }
        positions = Dictionary(clicks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        writingByProject = [:]
        bufferedByProject = [:]
        for click in clicks { bufferedByProject[click.projectId, default: 0] += 1 }
        return dropped - before
    }

    static func count(of batch: Batch) -> Int { batch.clicks.count }
}
