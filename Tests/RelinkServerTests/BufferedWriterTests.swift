import Atomics
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import Testing

@testable import RelinkServer
@testable import RelinkStore

/// Flushes of the buffered writers, one write at a time: a flush asked during a write (the periodic one) returns
/// only when what was recorded before it, in that write or after it, is in the store.
@Suite("Buffered writers") struct BufferedWriterTests {
    /// An event store whose first write waits until `open` (the periodic flush, caught in the middle); the writes
    /// after it go straight through.
    final class GatedEventStore: EventRepository {
        let base: SQLiteStore
        /// Yields when a write starts, with its counters.
        let writes: AsyncStream<[EventCounterKey: Int64]>
        private let started: AsyncStream<[EventCounterKey: Int64]>.Continuation
        private let gate = FirstWriteGate()

        init(base: SQLiteStore) {
            self.base = base
            (writes, started) = AsyncStream.makeStream()
        }

        func open() { gate.open() }

        func addEventCounts(_ counts: [EventCounterKey: Int64]) async throws {
            started.yield(counts)
            await gate.pass()
            try await base.addEventCounts(counts)
        }

        func eventCounts(linkId: Int64, fromDay: Int) async throws -> [EventCount] { try await base.eventCounts(linkId: linkId, fromDay: fromDay) }
        func variantEventCounts(linkId: Int64, fromDay: Int) async throws -> [VariantEventCount] {
            try await base.variantEventCounts(linkId: linkId, fromDay: fromDay)
        }
        func clickCount(linkId: Int64) async throws -> Int64 { try await base.clickCount(linkId: linkId) }
        func dailyEventCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [DailyEventCount] {
            try await base.dailyEventCounts(scope, fromDay: fromDay, toDay: toDay)
        }
        func confidenceCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [ConfidenceCount] {
            try await base.confidenceCounts(scope, fromDay: fromDay, toDay: toDay)
        }
        func clickCounts(linkIds: [Int64], fromDay: Int) async throws -> [Int64: Int64] {
            try await base.clickCounts(linkIds: linkIds, fromDay: fromDay)
        }
    }

    static func link(in store: SQLiteStore, code: String, maxClicks: Int? = nil) async throws -> ShortLinkRecord {
        try await store.insertLink(
            ShortLinkDraft(
                projectId: "pictlink", domain: "https://go.pictlink.com", code: code, longLink: ShortLinkAPITests.sampleLongLink,
                parameters: LongLink.parse(ShortLinkAPITests.sampleLongLink).parameters, suffixOption: .custom, idempotencyKey: nil,
                createdAt: Date(), maxClicks: maxClicks))
    }

    /// A link deleted by hand while its clicks wait to be written: the flush drops its counters and writes every other
    /// link's (the store refuses a batch naming it, which would otherwise be refused again at every retry).
    @Test func countersOfALinkDeletedWhileBufferedDoNotHoldBackTheRest() async throws {
        let store = try SQLiteStore()
        let kept = try await Self.link(in: store, code: "kept")
        let deleted = try await Self.link(in: store, code: "deleted")
        let recorder = EventRecorder(store: store, interval: .seconds(3600), logger: Logger(label: "test"))
        recorder.record(linkId: kept.id, platform: .android, event: .click)
        recorder.record(linkId: deleted.id, platform: .android, event: .click)
        try await store.writer.write { db in try db.execute(sql: "DELETE FROM links WHERE id = ?", arguments: [deleted.id]) }
        #expect(await recorder.flush())
        #expect(try await store.clickCount(linkId: kept.id) == 1)
        #expect(recorder.unwrittenClicks(linkId: kept.id) == 0)
        recorder.record(linkId: kept.id, platform: .iPhone, event: .click)
        #expect(await recorder.flush())
        #expect(try await store.clickCount(linkId: kept.id) == 2)
        // The stop's line accounts for every event recorded: the deleted link's is neither written nor unwritten.
        #expect(recorder.recordedCount == 3 && recorder.writtenCount == 2 && recorder.discardedCount == 1)
        let backlog = StoreBacklog()
        let clicks = DeferredClickRecorder(store: store, configuration: TestSupport.configuration, logger: Logger(label: "test"))
        backlog.watch(events: recorder, clicks: clicks)
        let line = backlog.stopMessage(after: .seconds(1), deadline: .seconds(10))
        #expect(line.contains("events written: 2 of 3 recorded (1 of links deleted meanwhile"), "\(line)")
    }

    /// A stats flush asked while the periodic flush writes: it returns with the periodic flush's click and the click
    /// recorded meanwhile both in the store; until then both count as unwritten (a click limit adds them).
    @Test func aFlushDuringAWriteIncludesWhatWasRecordedBeforeIt() async throws {
        let base = try SQLiteStore()
        let link = try await Self.link(in: base, code: "gated")
        let store = GatedEventStore(base: base)
        let recorder = EventRecorder(store: store, interval: .seconds(3600), logger: Logger(label: "test"))
        var writes = store.writes.makeAsyncIterator()

        recorder.record(linkId: link.id, platform: .android, event: .click)
        let periodic = Task { await recorder.flush() }
        // The periodic flush is writing the first click.
        let first = await writes.next()
        #expect(first?.values.reduce(0, +) == 1)
        #expect(recorder.unwrittenClicks(linkId: link.id) == 1)

        recorder.record(linkId: link.id, platform: .iPhone, event: .click)
        let stats = Task {
            await recorder.flush()
            return try await base.clickCount(linkId: link.id)
        }
        // Time for the stats flush to ask (it must wait, however long this is).
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.unwrittenClicks(linkId: link.id) == 2, "the click being written and the one buffered")
        store.open()
        #expect(try await stats.value == 2, "the stats flush returned before the clicks recorded before it were written")
        #expect(await periodic.value)
        #expect(recorder.unwrittenClicks(linkId: link.id) == 0)
        #expect(recorder.writtenCount == 2)
    }

    /// A click limit's count of a link, store and memory together, while the link's counters are written: a write that
    /// begins and ends during the store's read left its clicks in neither (the store read before it committed, memory
    /// looked at after), and a write running when the count is asked is waited for.
    @Test func aLinksClickCountHoldsEachClickOnceWhileItsCountersAreWritten() async throws {
        let base = try SQLiteStore()
        let link = try await Self.link(in: base, code: "counted")
        let recorder = EventRecorder(store: base, interval: .seconds(3600), logger: Logger(label: "test"))
        for _ in 0..<5 { recorder.record(linkId: link.id, platform: .android, event: .click) }
        var reads = 0
        let count = try await recorder.clickCount(linkId: link.id) {
            reads += 1
            let stored = try await base.clickCount(linkId: link.id)
            if reads == 1 { #expect(await recorder.flush()) }
            return stored
        }
        #expect(count == 5, "the store read before the write, memory after it")
        #expect(reads == 2)

        let gated = GatedEventStore(base: base)
        let slow = EventRecorder(store: gated, interval: .seconds(3600), logger: Logger(label: "test"))
        var writes = gated.writes.makeAsyncIterator()
        for _ in 0..<3 { slow.record(linkId: link.id, platform: .android, event: .click) }
        let periodic = Task { await slow.flush() }
        _ = await writes.next()
        let opened = ManagedAtomic(false)
        let asked = Task {
            try await slow.clickCount(linkId: link.id) {
                let afterTheWrite = opened.load(ordering: .relaxed)
                #expect(afterTheWrite, "the store was read while the write ran")
                return try await base.clickCount(linkId: link.id)
            }
        }
        // Longer than a few retries: the store's read waits for the write however many it takes, up to its patience.
        try await Task.sleep(for: .milliseconds(300))
        opened.store(true, ordering: .relaxed)
        gated.open()
        #expect(try await asked.value == 8, "the 3 clicks being written, counted in neither or twice")
        #expect(await periodic.value)
    }

    /// Flushes asked together while a write runs share the next write; each returns with everything it asked for.
    @Test func flushesAskedTogetherShareOneWrite() async throws {
        let base = try SQLiteStore()
        let link = try await Self.link(in: base, code: "shared")
        let store = GatedEventStore(base: base)
        let recorder = EventRecorder(store: store, interval: .seconds(3600), logger: Logger(label: "test"))
        var writes = store.writes.makeAsyncIterator()
        recorder.record(linkId: link.id, platform: .android, event: .click)
        let periodic = Task { await recorder.flush() }
        _ = await writes.next()
        recorder.record(linkId: link.id, platform: .android, event: .click)
        recorder.record(linkId: link.id, platform: .iPhone, event: .click)
        let flushes = (0..<5).map { _ in
            Task {
                await recorder.flush()
                return try await base.clickCount(linkId: link.id)
            }
        }
        try await Task.sleep(for: .milliseconds(100))
        store.open()
        for flush in flushes { #expect(try await flush.value == 3) }
        #expect(await periodic.value)
        // The first write, then one for the five flushes (they asked during the first).
        let second = await writes.next()
        #expect(second?.values.reduce(0, +) == 2)
        recorder.record(linkId: link.id, platform: .android, event: .click)
        await recorder.flush()
        let third = await writes.next()
        #expect(third?.values.reduce(0, +) == 1)
    }
}
