import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import ServiceLifecycle
import Testing

@testable import RelinkServer

/// A claim flushes the pending-click recorder before it looks for the install's click (`DeferredLinkService.claim`):
/// a click made a moment ago, while the periodic flush is still writing the clicks before it, must be in the store
/// when that flush returns.
@Suite("Claim flushes") struct ClaimFlushTests {
    /// A pending-click store whose first write waits until `open` (the periodic flush, caught in the middle).
    final class GatedPendingClickStore: DeferredLinkRepository {
        let base: SQLiteStore
        /// Yields when a write starts, with its clicks' ids.
        let writes: AsyncStream<[String]>
        private let started: AsyncStream<[String]>.Continuation
        private let gate = FirstWriteGate()
        /// Every write fails (the store is locked or down for pending clicks only), and none is held.
        let failsWrites: Bool
        /// Every purge takes an hour, unless cancelled (a purge of a flood's clicks, which takes minutes).
        let slowPurges: Bool

        init(base: SQLiteStore, failsWrites: Bool = false, slowPurges: Bool = false) {
            self.base = base
            self.failsWrites = failsWrites
            self.slowPurges = slowPurges
            (writes, started) = AsyncStream.makeStream()
        }

        func open() { gate.open() }

        func insertPendingClicks(_ clicks: [PendingClick]) async throws {
            started.yield(clicks.map(\.id))
            if failsWrites { throw StoreError.unavailable("pending clicks cannot be written") }
            await gate.pass()
            try await base.insertPendingClicks(clicks)
        }

        func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
            try await base.addBrowserSignals(clickId: clickId, screen: screen, timeZone: timeZone, languages: languages)
        }
        func pendingClick(id: String) async throws -> PendingClick? { try await base.pendingClick(id: id) }
        func candidateClicks(
            projectId: String, platform: AppPlatform, appId: String, since: Date, until: Date, fingerprint: DeviceFingerprint,
            bounds: CandidateBounds
        ) async throws -> [PendingClick] {
            try await base.candidateClicks(
                projectId: projectId, platform: platform, appId: appId, since: since, until: until, fingerprint: fingerprint, bounds: bounds)
        }
        func addressActivity(
            projectId: String, addressHash: String, since: Date, recentSince: Date, platform: AppPlatform, fingerprint: DeviceFingerprint,
            limit: Int
        ) async throws -> AddressActivity {
            try await base.addressActivity(
                projectId: projectId, addressHash: addressHash, since: since, recentSince: recentSince, platform: platform,
                fingerprint: fingerprint, limit: limit)
        }
        func claim(
            clickId: String?, confidence: AttributionConfidence?, projectId: String, installId: String?, response: String, at: Date,
            events: EventDeliveries<String>?
        ) async throws -> ClaimOutcome {
            try await base.claim(
                clickId: clickId, confidence: confidence, projectId: projectId, installId: installId, response: response, at: at, events: events)
        }
        func installClaim(projectId: String, installId: String) async throws -> InstallClaim? {
            try await base.installClaim(projectId: projectId, installId: installId)
        }
        func linkClicks(linkId: Int64, limit: Int) async throws -> [PendingClick] { try await base.linkClicks(linkId: linkId, limit: limit) }
        func recordShadowMatch(projectId: String, day: Int, confidence: AttributionConfidence?, sameClick: Bool) async throws {
            try await base.recordShadowMatch(projectId: projectId, day: day, confidence: confidence, sameClick: sameClick)
        }
        func shadowMatches(projectId: String, fromDay: Int) async throws -> [ShadowMatchCount] {
            try await base.shadowMatches(projectId: projectId, fromDay: fromDay)
        }
        func purgeDeferredData(projectId: String, clicksBefore: Date, claimsBefore: Date, limit: Int) async throws -> Int {
            if slowPurges { try await Task.sleep(for: .seconds(3600)) }
            return try await base.purgeDeferredData(projectId: projectId, clicksBefore: clicksBefore, claimsBefore: claimsBefore, limit: limit)
        }
        func projectsWithDeferredData() async throws -> Set<String> { try await base.projectsWithDeferredData() }
        func pendingClickCount(projectId: String, limit: Int) async throws -> Int {
            if failingCounts.withLockedValue({ failing in
                defer { failing = max(0, failing - 1) }
                return failing > 0
            }) {
                throw StoreError.unavailable("the database did not answer")
            }
            return try await base.pendingClickCount(projectId: projectId, limit: limit)
        }
        /// How many counts of pending clicks fail before they work again.
        let failingCounts = NIOLockedValueBox(0)
    }

    @Test func aClaimsFlushIncludesAClickRecordedDuringThePeriodicFlush() async throws {
        let base = try SQLiteStore()
        let store = GatedPendingClickStore(base: base)
        let recorder = DeferredClickRecorder(
            store: store, configuration: TestSupport.configuration, interval: .seconds(3600), logger: Logger(label: "test"))
        var writes = store.writes.makeAsyncIterator()

        recorder.record(WriteBufferTests.click(1))
        let periodic = Task { await recorder.flush() }
        // The periodic flush is writing the first click, and is held there.
        #expect(await writes.next() == ["click1"])

        // The install's own click, a moment before its claim.
        recorder.record(WriteBufferTests.click(2))
        let claim = Task {
            let flushed = await recorder.flush()
            #expect(flushed)
            return try await base.pendingClick(id: "click2")
        }
        // Time for the claim's flush to ask (it must wait, however long this is).
        try await Task.sleep(for: .milliseconds(100))
        store.open()
        #expect(try await claim.value != nil, "the claim's flush returned before the click made before it was written")
        #expect(await periodic.value)
        #expect(try await base.pendingClick(id: "click1") != nil)
    }

    /// A claim whose flush fails answers 503 (the app retries) instead of matching without the clicks still in
    /// memory: that answer would be kept for the install id, and every retry would get it (an attack saw it).
    @Test func aClaimWhoseFlushFailsIsA503() async throws {
        let base = try SQLiteStore()
        let recorder = DeferredClickRecorder(
            store: GatedPendingClickStore(base: base, failsWrites: true), configuration: TestSupport.configuration,
            interval: .seconds(3600), logger: Logger(label: "test"))
        let service = DeferredLinkService(
            resolver: LinkResolver(configuration: TestSupport.configuration, store: base, cache: LinkCache(capacity: 16)), recorder: recorder,
            events: EventRecorder(store: base, interval: .seconds(3600), logger: Logger(label: "test")),
            hasher: AddressHasher(secrets: .ephemeral()))
        recorder.record(WriteBufferTests.click(1))
        let request = try JSONDecoder().decode(
            InstallAttributionRequest.self,
            from: Data(#"{"bundleId": "jp.furyu.pictlink.ios", "iosVersion": "17.2", "installId": "flush-fails"}"#.utf8))
        await #expect(throws: StoreError.self) {
            _ = try await service.claim(request, clientAddress: "203.0.113.7", keyProject: nil)
        }
        #expect(try await base.installClaim(projectId: "pictlink", installId: "IOS/jp.furyu.pictlink.ios/flush-fails") == nil)
    }

    /// Clicks reach the store each second while a purge runs (a flood's clicks take minutes to purge), and a stop does
    /// not wait for the purge: it ends at once, with the clicks written.
    @Test func clicksAreWrittenWhileAPurgeRunsAndAStopEndsIt() async throws {
        let base = try SQLiteStore()
        let store = GatedPendingClickStore(base: base, slowPurges: true)
        store.open()
        let recorder = DeferredClickRecorder(
            store: store, configuration: TestSupport.configuration, interval: .milliseconds(50), logger: Logger(label: "test"))
        let group = ServiceGroup(configuration: .init(services: [recorder], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let task = Task { try await group.run() }
        recorder.record(WriteBufferTests.click(1))
        var written = false
        for _ in 0..<200 where !written {
            try await Task.sleep(for: .milliseconds(50))
            written = try await base.pendingClick(id: "click1") != nil
        }
        #expect(written, "the click waited for the purge")
        let stopping = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(ContinuousClock.now - stopping < .seconds(5), "the stop waited for the purge")
    }
}
