import Atomics
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
    /// A part of the buffer: a link's counters are all in one stripe (by its id), so that clicks on different links
    /// do not queue for one lock (with one, the two event loops of a 2-core machine waited for each other about a
    /// hundred times a second, each wait stalling every connection of that loop), and a counter is held once, so the
    /// cap counts distinct counters.
    private struct Stripe {
        var counts: [EventCounterKey: Int64] = [:]
        /// The batch being written: not in `counts` any more, not in the store yet.
        var writing: [EventCounterKey: Int64] = [:]
        /// Events recorded into this stripe, and of those dropped because the buffer was full, since start.
        var recorded: Int64 = 0
        var dropped: Int64 = 0
    }

    private static let stripeCount = 8

    private let stripes: [NIOLockedValueBox<Stripe>]
    /// Counters held in all stripes' `counts` (each in one): never more than `capacity`.
    private let held = ManagedAtomic<Int>(0)
    /// Events the store has accepted, since start: for tests, benchmarks and logs.
    private let written = ManagedAtomic<Int64>(0)
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
        stripes = (0..<Self.stripeCount).map { _ in NIOLockedValueBox(Stripe()) }
    }

    private func stripe(of linkId: Int64) -> NIOLockedValueBox<Stripe> {
        stripes[Int(UInt64(bitPattern: linkId) % UInt64(Self.stripeCount))]
    }

    /// Takes a place for one more counter, if the buffer has one.
    private func reservePlace() -> Bool {
        if held.loadThenWrappingIncrement(ordering: .relaxed) < capacity { return true }
        held.wrappingDecrement(ordering: .relaxed)
        return false
    }

    /// Counts `events` of one click, under one lock (its link's stripe's).
    /// - Parameter confidence: for an install, how surely it was matched to its click.
    public func record(
        linkId: Int64, platform: Platform, events: [LinkEvent], variant: String? = nil, confidence: AttributionConfidence? = nil,
        at date: Date = Date()
    ) {
        let day = EventCounterKey.day(of: date)
        let platform = StatsPlatform(platform)
        let dropped = stripe(of: linkId).withLockedValue { stripe in
            var dropped = 0
            for event in events {
                let key = EventCounterKey(
                    linkId: linkId, day: day, platform: platform, event: event, variant: variant,
                    confidence: event == .appInstall ? confidence : nil)
                if let index = stripe.counts.index(forKey: key) {
                    stripe.counts.values[index] += 1
                } else if reservePlace() {
                    stripe.counts[key] = 1
                } else {
                    dropped += 1
                }
            }
            stripe.recorded += Int64(events.count)
            stripe.dropped += Int64(dropped)
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
        stripe(of: linkId).withLockedValue { stripe in
            var total: Int64 = 0
            for counts in [stripe.counts, stripe.writing] {
                for (key, count) in counts where key.linkId == linkId && key.event == .click && key.platform != .crawler { total += count }
            }
            return total
        }
    }

    /// Recorded events, events the store has accepted and events dropped because the buffer was full, since start.
    public var recordedCount: Int64 { stripes.reduce(0) { $0 + $1.withLockedValue { $0.recorded } } }
    public var writtenCount: Int64 { written.load(ordering: .relaxed) }
    public var droppedCount: Int64 { stripes.reduce(0) { $0 + $1.withLockedValue { $0.dropped } } }
    /// Counters waiting to be written.
    var depth: Int { held.load(ordering: .relaxed) }

    /// Writes what is pending now.
    @concurrent public func flush() async {
        // Each stripe handed over without a copy, and a new table of the same size put in its place: clearing a table
        // that `writing` still shares copied it under the lock, and clicks spread over a million links (36,000
        // counters a second) waited milliseconds for it once a second.
        let taken = stripes.map { stripe in
            let counts = stripe.withLockedValue { stripe in
                let counts = stripe.counts
                stripe.counts = Dictionary(minimumCapacity: min(counts.count, capacity))
                stripe.writing = counts
                return counts
            }
            held.wrappingDecrement(by: counts.count, ordering: .relaxed)
            return counts
        }
        // One table to write (the stripes hold different counters; as is, when only one stripe has any).
        let recording = taken.filter { !$0.isEmpty }
        var batch = recording.first ?? [:]
        if recording.count > 1 {
            batch.reserveCapacity(recording.reduce(0) { $0 + $1.count })
            for counts in recording.dropFirst() { batch.merge(counts, uniquingKeysWith: +) }
        }
        guard !batch.isEmpty else { return }
        let start = ContinuousClock.now
        do {
            try await store.addEventCounts(batch)
            metrics?.flushed(.clickEvents, duration: .now - start, failed: false)
            written.wrappingIncrement(by: batch.values.reduce(0, +), ordering: .relaxed)
            for stripe in stripes { stripe.withLockedValue { $0.writing = [:] } }
        } catch {
            metrics?.flushed(.clickEvents, duration: .now - start, failed: true)
            // Put the counts back, within the cap: the next flush retries them.
            // Each stripe's under its lock at once, so that a click limit never sees them neither here nor there.
            var dropped: Int64 = 0
            for (number, counts) in taken.enumerated() {
                dropped += stripes[number].withLockedValue { stripe in
                    stripe.writing = [:]
                    var dropped: Int64 = 0
                    for (key, count) in counts {
                        if let index = stripe.counts.index(forKey: key) {
                            stripe.counts.values[index] += count
                        } else if reservePlace() {
                            stripe.counts[key] = count
                        } else {
                            dropped += count
                        }
                    }
                    stripe.dropped += dropped
                    return dropped
                }
            }
            if dropped > 0 { metrics?.queueDropped(.clickEvents, count: Int(dropped)) }
            let message =
                "could not write \(batch.count) event counters, will retry\(dropped > 0 ? "; dropped \(dropped) events over the buffer's \(capacity) counters" : "")"
            if let outages { outages.report("flush", message, error: error) } else { logger.error("\(message): \(error)") }
        }
    }

    public func run() async throws {
        // Off the event loops (`BackgroundExecutor`): the flushes and what they free.
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                // Sleeps `interval`, or less when graceful shutdown begins.
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                await flush()
            }
            await flush()
            logger.info("events written: \(writtenCount) of \(recordedCount) recorded")
        }
    }
}
