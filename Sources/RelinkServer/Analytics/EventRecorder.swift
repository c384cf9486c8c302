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
    /// A link's counters are all in one stripe (by its id), so that clicks on different links do not queue for one
    /// lock and stall each other's event loops (see docs/performance.md, "Click counters in stripes"), and a counter
    /// is held once, so the cap counts distinct counters.
    private static let stripeCount = 8

    private let writer: BufferedWriter<EventCounterBuffer>
    private let places: CounterPlaces
    /// Events the store has accepted, since start: for tests, benchmarks and logs.
    private let written: ManagedAtomic<Int64>
    /// Events of links deleted (by hand) while they waited to be written, which had nowhere to go, since start.
    private let discarded: ManagedAtomic<Int64>
    private let interval: Duration
    /// The most counters held in memory.
    var capacity: Int { places.capacity }
    private let logger: Logger
    private let metrics: RelinkMetrics?
    /// How long the last flush of a stop may wait for the store.
    private let deadline: ShutdownDeadline

    public convenience init(
        store: any EventRepository, interval: Duration = .seconds(1), capacity: Int = 100_000, logger: Logger,
        metrics: RelinkMetrics? = nil
    ) {
        self.init(store: store, interval: interval, capacity: capacity, logger: logger, metrics: metrics, outages: nil)
    }

    init(
        store: any EventRepository, interval: Duration, capacity: Int = 100_000, logger: Logger, metrics: RelinkMetrics?,
        outages: StoreOutageLog?, deadline: ShutdownDeadline = ShutdownDeadline()
    ) {
        let places = CounterPlaces(capacity: capacity)
        let written = ManagedAtomic<Int64>(0)
        let discarded = ManagedAtomic<Int64>(0)
        self.places = places
        self.written = written
        self.discarded = discarded
        self.interval = interval
        self.logger = logger
        self.metrics = metrics
        self.deadline = deadline
        writer = BufferedWriter(
            stripes: Self.stripeCount, buffer: { EventCounterBuffer(places: places) }, queue: .clickEvents, metrics: metrics,
            outages: outages, logger: logger,
            failureMessage: { count, dropped in
                "could not write \(count) event counters, will retry\(dropped > 0 ? "; dropped \(dropped) events over the buffer's \(places.capacity) counters" : "")"
            },
            write: { batches in
                // One table to write (the stripes hold different counters; as is, when only one stripe has any).
                let recording = batches.filter { !$0.isEmpty }
                var batch = recording.first ?? [:]
                if recording.count > 1 {
                    batch.reserveCapacity(recording.reduce(0) { $0 + $1.count })
                    for counts in recording.dropFirst() { batch.merge(counts, uniquingKeysWith: +) }
                }
                do {
                    try await store.addEventCounts(batch)
                } catch let missing as CountersOfMissingLink {
                    // Links deleted by hand while their clicks waited here: their counters have nowhere to go, and
                    // must not hold back every other link's (the batch would be refused at each retry).
                    let gone = Set(missing.linkIds)
                    let kept = batch.filter { !gone.contains($0.key.linkId) }
                    logger.warning("\(batch.count - kept.count) event counters of deleted links dropped: \(missing)")
                    discarded.wrappingIncrement(
                        by: batch.filter { gone.contains($0.key.linkId) }.values.reduce(0, +), ordering: .relaxed)
                    batch = kept
                    try await store.addEventCounts(batch)
                }
                written.wrappingIncrement(by: batch.values.reduce(0, +), ordering: .relaxed)
            })
    }

    private func stripe(of linkId: Int64) -> Int {
        Int(UInt64(bitPattern: linkId) % UInt64(Self.stripeCount))
    }

    /// Counts `events` of one click, under one lock (its link's stripe's).
    /// - Parameter confidence: for an install, how surely it was matched to its click.
    public func record(
        linkId: Int64, platform: Platform, events: [LinkEvent], variant: String? = nil, confidence: AttributionConfidence? = nil,
        at date: Date = Date()
    ) {
        let day = EventCounterKey.day(of: date)
        let platform = StatsPlatform(platform)
        let dropped = writer.withBuffer(stripe: stripe(of: linkId)) { buffer in
            var dropped = 0
            for event in events {
                let key = EventCounterKey(
                    linkId: linkId, day: day, platform: platform, event: event, variant: variant,
                    confidence: event == .appInstall ? confidence : nil)
                if buffer.record(key) == .dropped { dropped += 1 }
            }
            return dropped
        }
        if dropped > 0 { metrics?.queueDropped(.clickEvents, count: dropped) }
    }

    public func record(linkId: Int64, platform: Platform, event: LinkEvent, at date: Date = Date()) {
        record(linkId: linkId, platform: platform, events: [event], at: date)
    }

    /// Human clicks on `linkId` recorded here and not yet in the store, buffered or being written (a click limit adds
    /// them to the store's count).
    func unwrittenClicks(linkId: Int64) -> Int64 {
        writer.withBuffer(stripe: stripe(of: linkId)) { $0.unwrittenClicks(linkId: linkId) }
    }

    /// Link `linkId`'s human clicks: the store's (`inStore`, which reads them) and those in memory, each click once.
    /// A write of the link's counters that overlaps the store's read can leave its clicks in neither (read before it
    /// committed, gone from memory after) or in both, so the store is read while no write runs, and again if one ran
    /// meanwhile. A write still running after `clickCountPatience` (a store stuck longer than SQLite's busy timeout)
    /// gets the count that may hold its clicks twice, never one without them: a limit then refuses a click early, never
    /// late.
    func clickCount(linkId: Int64, inStore: () async throws -> Int64) async throws -> Int64 {
        let stripe = stripe(of: linkId)
        let deadline = ContinuousClock.now + Self.clickCountPatience
        var pause = Duration.milliseconds(1)
        while ContinuousClock.now < deadline {
            let (writes, unwritten) = writer.withBuffer(stripe: stripe) { ($0.writes, $0.unwrittenClicks(linkId: linkId)) }
            if writes.isMultiple(of: 2) {
                let stored = try await inStore()
                if writer.withBuffer(stripe: stripe, { $0.writes }) == writes { return stored + unwritten }
            }
            try await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(32))
        }
        let unwritten = unwrittenClicks(linkId: linkId)
        return try await inStore() + unwritten
    }

    /// How long `clickCount` waits for a running write: past SQLite's busy timeout (1 s), after which a write blocked by
    /// another process's lock has failed or committed.
    static let clickCountPatience = Duration.milliseconds(1_500)

    /// Recorded events, events the store has accepted and events dropped because the buffer was full, since start.
    public var recordedCount: Int64 {
        (0..<writer.stripeCount).reduce(0) { total, stripe in total + writer.withBuffer(stripe: stripe) { $0.recorded } }
    }
    public var writtenCount: Int64 { written.load(ordering: .relaxed) }
    /// Events of links deleted while they waited, since start: neither written nor dropped.
    public var discardedCount: Int64 { discarded.load(ordering: .relaxed) }
    public var droppedCount: Int64 {
        (0..<writer.stripeCount).reduce(0) { total, stripe in total + writer.withBuffer(stripe: stripe) { $0.dropped } }
    }
    /// Events held and not yet in the store: buffered or being written.
    public var unwrittenCount: Int64 {
        (0..<writer.stripeCount).reduce(0) { total, stripe in total + writer.withBuffer(stripe: stripe) { $0.unwritten } }
    }
    /// Counters waiting to be written.
    var depth: Int { places.count }

    /// Writes what is pending now; with a write running (the periodic one, another request's), waits for it and then
    /// writes what is left, so that everything recorded before the call is in the store when it returns; false when
    /// the store failed (and lacks some of it).
    @discardableResult
    @concurrent public func flush() async -> Bool {
        await writer.flush()
    }

    public func run() async throws {
        // Off the event loops (`BackgroundExecutor`): the flushes and what they free.
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                // Sleeps `interval`, or less when graceful shutdown begins.
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                await flush()
            }
            // What the stop's deadline allows; what is left is counted in the stop's log line (`StoreBacklog`).
            await deadline.lastFlush { await self.flush() }
        }
    }
}
