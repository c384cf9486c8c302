import Foundation
import NIOConcurrencyHelpers

/// What the writers hold that the store has not taken: click events and clicks kept for deferred links. Read when the
/// service stops, for its last log line, which says what a stop could not write (or that it wrote everything).
public final class StoreBacklog: Sendable {
    private let writers = NIOLockedValueBox<(events: EventRecorder?, clicks: DeferredClickRecorder?)>((nil, nil))

    public init() {}

    func watch(events: EventRecorder, clicks: DeferredClickRecorder) {
        writers.withLockedValue { $0 = (events, clicks) }
    }

    public struct Counts: Sendable, Equatable {
        /// Events recorded since the start, written to the store, dropped while it was unavailable (over the
        /// buffer's cap), and held still (recorded, neither written nor dropped).
        public var recordedEvents: Int64 = 0
        public var writtenEvents: Int64 = 0
        public var droppedEvents: Int64 = 0
        public var unwrittenEvents: Int64 = 0
        /// Events of links deleted while they waited (by hand, in SQL): they had no link to count for.
        public var discardedEvents: Int64 = 0
        /// Clicks kept for deferred links and not in the store yet, and dropped since the start.
        public var unwrittenClicks = 0
        public var droppedClicks = 0
    }

    public var counts: Counts {
        let (events, clicks) = writers.withLockedValue { $0 }
        var counts = Counts()
        if let events {
            counts.recordedEvents = events.recordedCount
            counts.writtenEvents = events.writtenCount
            counts.droppedEvents = events.droppedCount
            counts.unwrittenEvents = events.unwrittenCount
            counts.discardedEvents = events.discardedCount
        }
        if let clicks {
            (counts.unwrittenClicks, counts.droppedClicks) = clicks.depth
        }
        return counts
    }

    /// The stop's one line: how long it took and what it could not write.
    public func stopMessage(after elapsed: Duration, deadline: Duration) -> String {
        let counts = counts
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let took = "stopped in \(String(format: "%.1f", seconds)) s"
        let written =
            "events written: \(counts.writtenEvents) of \(counts.recordedEvents) recorded"
            + (counts.discardedEvents > 0 ? " (\(counts.discardedEvents) of links deleted meanwhile had nowhere to go)" : "")
        let dropped =
            counts.droppedEvents + Int64(counts.droppedClicks) > 0
            ? "; dropped earlier while the store was unavailable: \(counts.droppedEvents) events, \(counts.droppedClicks) deferred-link clicks"
            : ""
        guard counts.unwrittenEvents > 0 || counts.unwrittenClicks > 0 else {
            return "\(took); \(written); nothing left unwritten\(dropped)"
        }
        return
            "\(took); \(written); NOT WRITTEN: \(counts.unwrittenEvents) events and \(counts.unwrittenClicks) deferred-link clicks, which the store did not take before the \(deadline) shutdown deadline\(dropped)"
    }
}
