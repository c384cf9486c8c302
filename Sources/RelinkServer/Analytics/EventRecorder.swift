import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Click events on their way to the store. Recording only adds to an in-memory counter (a redirect never
/// waits for the disk); a service writes the counters in one transaction every `interval`, and once more on
/// graceful shutdown, after the HTTP server has stopped, so nothing recorded is lost.
///
/// The buffer holds one counter per distinct (link, day, platform, event) touched since the last write, not one
/// entry per click, and at most `capacity` counters: while the store cannot take them, events of counters not
/// yet in the buffer are dropped and counted (the redirect never waits). A failed write keeps its counts for the
/// next attempt, within the same cap.
public final class EventRecorder: Service, Sendable {
    private struct Buffer {
        var counts: [EventCounterKey: Int64] = [:]
        /// The batch being written: not in `counts` any more, not in the store yet.
        var writing: [EventCounterKey: Int64] = [:]
        /// Recorded events, and events the store has accepted, since start: for tests, benchmarks and logs.
        var recorded: Int64 = 0
        var written: Int64 = 0
        /// Events dropped because the buffer was full, since start.
        var dropped: Int64 = 0
    }

    private let buffer = NIOLockedValueBox(Buffer())
    private let store: any EventRepository
    private let interval: Duration
    /// The most counters held in memory.
    let capacity: Int
    private let logger: Logger
    private let metrics: RelinkMetrics?
    private let outages: StoreOutageLog?

    public convenience init(
        store: any EventRepository, interval: Duration = .seconds(1), capacity: Int = 100_000, logger: Logger,
        metrics: RelinkMetrics? = nil
    ) {
        self.init(store: store, interval: interval, capacity: capacity, logger: logger, metrics: metrics, outages: nil)
    }

    init(
        store: any EventRepository, interval: Duration, capacity: Int = 100_000, logger: Logger, metrics: RelinkMetrics?,
        outages: StoreOutageLog?
    ) {
        self.store = store
        self.interval = interval
        self.capacity = max(1, capacity)
        self.logger = logger
        self.metrics = metrics
        self.outages = outages
    }

    /// Counts `events` of one click, under one lock.
    /// - Parameter confidence: for an install, how surely it was matched to its click.
    public func record(
        linkId: Int64, platform: Platform, events: [LinkEvent], variant: String? = nil, confidence: AttributionConfidence? = nil,
        at date: Date = Date()
    ) {
        let day = EventCounterKey.day(of: date)
        let platform = StatsPlatform(platform)
        let dropped = buffer.withLockedValue { buffer in
            var dropped = 0
            for event in events {
                let key = EventCounterKey(
                    linkId: linkId, day: day, platform: platform, event: event, variant: variant,
                    confidence: event == .appInstall ? confidence : nil)
                if let index = buffer.counts.index(forKey: key) {
                    buffer.counts.values[index] += 1
                } else if buffer.counts.count < capacity {
                    buffer.counts[key] = 1
                } else {
                    dropped += 1
                }
            }
            buffer.recorded += Int64(events.count)
            buffer.dropped += Int64(dropped)
            return dropped
        }
        if dropped > 0 { metrics?.queueDropped(.clickEvents, count: dropped) }
    }

    public func record(linkId: Int64, platform: Platform, event: LinkEvent, at date: Date = Date()) {
        record(linkId: linkId, platform: platform, events: [event], at: date)
    }

    /// Human clicks on `linkId` recorded here and not yet in the store (a click limit adds them to the store's
    /// count). Scans the buffer: only links with a limit ask.
    func unwrittenClicks(linkId: Int64) -> Int64 {
        buffer.withLockedValue { buffer in
            var total: Int64 = 0
            for counts in [buffer.counts, buffer.writing] {
                for (key, count) in counts where key.linkId == linkId && key.event == .click && key.platform != .crawler { total += count }
            }
            return total
        }
    }

    public var recordedCount: Int64 { buffer.withLockedValue { $0.recorded } }
    public var writtenCount: Int64 { buffer.withLockedValue { $0.written } }
    public var droppedCount: Int64 { buffer.withLockedValue { $0.dropped } }
    /// Counters waiting to be written.
    var depth: Int { buffer.withLockedValue { $0.counts.count } }

    /// Writes what is pending now.
    public func flush() async {
        // Handed over without a copy, and a new table of the same size put in its place: clearing a table that
        // `writing` still shares copied it under the lock, and clicks spread over a million links (36,000 counters
        // a second) waited milliseconds for it once a second.
        let batch = buffer.withLockedValue { buffer in
            let batch = buffer.counts
            buffer.counts = Dictionary(minimumCapacity: min(batch.count, capacity))
            buffer.writing = batch
            return batch
        }
        guard !batch.isEmpty else { return }
        let start = ContinuousClock.now
        do {
            try await store.addEventCounts(batch)
            metrics?.flushed(.clickEvents, duration: .now - start, failed: false)
            let events = batch.values.reduce(0, +)
            buffer.withLockedValue {
                $0.written += events
                $0.writing = [:]
            }
        } catch {
            metrics?.flushed(.clickEvents, duration: .now - start, failed: true)
            // Put the counts back, within the cap: the next flush retries them.
            let dropped = buffer.withLockedValue { buffer in
                buffer.writing = [:]
                var dropped: Int64 = 0
                for (key, count) in batch {
                    if let index = buffer.counts.index(forKey: key) {
                        buffer.counts.values[index] += count
                    } else if buffer.counts.count < capacity {
                        buffer.counts[key] = count
                    } else {
                        dropped += count
                    }
                }
                buffer.dropped += dropped
                return dropped
            }
            if dropped > 0 { metrics?.queueDropped(.clickEvents, count: Int(dropped)) }
            let message =
                "could not write \(batch.count) event counters, will retry\(dropped > 0 ? "; dropped \(dropped) events over the buffer's \(capacity) counters" : "")"
            if let outages { outages.report("flush", message, error: error) } else { logger.error("\(message): \(error)") }
        }
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            // Sleeps `interval`, or less when graceful shutdown begins.
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            await flush()
        }
        await flush()
        logger.info("events written: \(writtenCount) of \(recordedCount) recorded")
    }
}
