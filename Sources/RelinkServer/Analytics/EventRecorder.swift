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
/// The buffer is bounded by the number of distinct (link, day, platform, event) counters touched since the last
/// write, not by the number of clicks. A failed write keeps its counts for the next attempt.
public final class EventRecorder: Service, Sendable {
    private struct Buffer {
        var counts: [EventCounterKey: Int64] = [:]
        /// Recorded events, and events the store has accepted, since start: for tests, benchmarks and logs.
        var recorded: Int64 = 0
        var written: Int64 = 0
    }

    private let buffer = NIOLockedValueBox(Buffer())
    private let store: any EventRepository
    private let interval: Duration
    private let logger: Logger

    public init(store: any EventRepository, interval: Duration = .seconds(1), logger: Logger) {
        self.store = store
        self.interval = interval
        self.logger = logger
    }

    /// Counts `events` of one click, under one lock.
    public func record(linkId: Int64, platform: Platform, events: [LinkEvent], at date: Date = Date()) {
        let day = EventCounterKey.day(of: date)
        let platform = StatsPlatform(platform)
        buffer.withLockedValue { buffer in
            for event in events {
                buffer.counts[EventCounterKey(linkId: linkId, day: day, platform: platform, event: event), default: 0] += 1
            }
            buffer.recorded += Int64(events.count)
        }
    }

    public func record(linkId: Int64, platform: Platform, event: LinkEvent, at date: Date = Date()) {
        record(linkId: linkId, platform: platform, events: [event], at: date)
    }

    public var recordedCount: Int64 { buffer.withLockedValue { $0.recorded } }
    public var writtenCount: Int64 { buffer.withLockedValue { $0.written } }

    /// Writes what is pending now.
    public func flush() async {
        let batch = buffer.withLockedValue { buffer in
            defer { buffer.counts.removeAll(keepingCapacity: true) }
            return buffer.counts
        }
        guard !batch.isEmpty else { return }
        do {
            try await store.addEventCounts(batch)
            let events = batch.values.reduce(0, +)
            buffer.withLockedValue { $0.written += events }
        } catch {
            // Put the counts back: the next flush retries them.
            buffer.withLockedValue { buffer in
                for (key, count) in batch { buffer.counts[key, default: 0] += count }
            }
            logger.error("could not write \(batch.count) event counters, will retry: \(error)")
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
