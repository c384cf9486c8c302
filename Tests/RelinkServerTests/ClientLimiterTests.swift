import Foundation
import Logging
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

@Suite("Client limits and queues") struct ClientLimiterTests {
    @Test func clientNetworksCountIPv4ByAddressAndIPv6ByPrefix() {
        #expect(ClientNetwork("192.0.2.7").description == "192.0.2.7")
        #expect(ClientNetwork("::ffff:192.0.2.7") == ClientNetwork("192.0.2.7"))
        #expect(ClientNetwork("192.0.2.7") != ClientNetwork("192.0.2.8"))
        // A /64 by default: a client rotating its interface id stays one client.
        #expect(ClientNetwork("2001:db8:1:2::1") == ClientNetwork("2001:db8:1:2:ffff:eeee:dddd:cccc"))
        #expect(ClientNetwork("2001:db8:1:2::1") != ClientNetwork("2001:db8:1:3::1"))
        #expect(ClientNetwork("2001:db8:1:2::1").description == "2001:db8:1:2:0:0:0:0/64")
        // --ipv6-limit-prefix 48 and 56: whole sites; 128: single addresses.
        #expect(ClientNetwork("2001:db8:1:2::1", ipv6PrefixLength: 48) == ClientNetwork("2001:db8:1:ff::1", ipv6PrefixLength: 48))
        #expect(ClientNetwork("2001:db8:1:2::1", ipv6PrefixLength: 56) == ClientNetwork("2001:db8:1:ff::1", ipv6PrefixLength: 56))
        #expect(ClientNetwork("2001:db8:1:1ff::1", ipv6PrefixLength: 56) != ClientNetwork("2001:db8:1:2ff::1", ipv6PrefixLength: 56))
        #expect(ClientNetwork("2001:db8::1", ipv6PrefixLength: 128) != ClientNetwork("2001:db8::2", ipv6PrefixLength: 128))
        #expect(ClientNetwork("2001:db8::1:1", ipv6PrefixLength: 96) == ClientNetwork("2001:db8::1:2", ipv6PrefixLength: 96))
        #expect(ClientNetwork(nil) == .unknown && ClientNetwork("not an address") == .unknown)
        #expect(ClientNetwork.anonymized("198.51.100.77") == "198.51.100.0/24")
        #expect(ClientNetwork.anonymized("2001:db8:1:2::1") == "2001:db8:1::/48")
    }

    /// Each endpoint has its own budget: a client that used up its re-opens may still claim.
    @Test func endpointsHaveTheirOwnBudgets() {
        let limiter = ClientLimiter(ipv6PrefixLength: 64, capacity: 1_000)
        func allowed(_ endpoint: ClientLimiter.Endpoint, _ address: String) -> Bool {
            if case .success = limiter.acquire(endpoint, clientAddress: address) { return true }
            return false
        }
        for _ in 0..<ClientLimiter.Endpoint.reopen.defaultLimit.burst { #expect(allowed(.reopen, "2001:db8::1")) }
        #expect(!allowed(.reopen, "2001:db8::ffff"), "another address of the same /64 got a fresh budget")
        #expect(allowed(.claim, "2001:db8::1"), "re-opens used up the claims' budget")
        #expect(allowed(.reopen, "2001:db8:0:1::1"), "another /64 was limited")
    }

    /// A click on a long link spends both budgets: the long links' must be the tighter, or it limits nothing past its
    /// burst, and a network keeps ten 7 KB links a second (7.6 GB a day) where the docs say about 1 GB.
    @Test func theLongLinkBudgetIsTighterThanTheKeptClicks() {
        let long = ClientLimiter.Endpoint.longLinkCapture.defaultLimit
        #expect(long.requestsPerSecond * 8_800 <= ClientLimiter.defaultKeptClicks.requestsPerSecond * 1_300)
    }

    /// Clicks from many networks (each takes a kept click's token) do not make the limiter forget a network it is
    /// limiting on another endpoint: here its wrong API keys, whose budget would start full again.
    @Test func keptClicksDoNotPushOutOtherBudgets() {
        let limiter = ClientLimiter(ipv6PrefixLength: 64, capacity: 64)
        func allowed(_ endpoint: ClientLimiter.Endpoint, _ address: String) -> Bool {
            if case .success = limiter.acquire(endpoint, clientAddress: address) { return true }
            return false
        }
        for _ in 0..<ClientLimiter.Endpoint.failedKey.defaultLimit.burst { #expect(allowed(.failedKey, "198.51.100.1")) }
        #expect(!allowed(.failedKey, "198.51.100.1"))
        for number in 0..<1_000 {
            #expect(allowed(.clickCapture, "10.0.\(number / 256).\(number % 256)"))
            #expect(allowed(.longLinkCapture, "10.1.\(number / 256).\(number % 256)"))
        }
        #expect(!allowed(.failedKey, "198.51.100.1"), "1,000 networks' clicks reset this network's budget of wrong API keys")
    }

    /// Kept clicks are budgeted per network and project; every other endpoint per network alone, whichever project
    /// asks. The server's `keptClicks` is what applies to kept clicks, not their default.
    @Test func keptClicksAreBudgetedPerProject() {
        let limiter = ClientLimiter(keptClicks: RateLimit(requestsPerSecond: 1, burst: 3), capacity: 1_000, elapsed: { .zero })
        #expect(limiter.limit(of: .clickCapture) == RateLimit(requestsPerSecond: 1, burst: 3))
        #expect(limiter.limit(of: .claim) == ClientLimiter.Endpoint.claim.defaultLimit)
        let network = ClientNetwork("198.51.100.9")
        func allowed(_ endpoint: ClientLimiter.Endpoint, _ project: String) -> Bool {
            if case .success = limiter.acquire(endpoint, network: network, projectId: project) { return true }
            return false
        }
        for _ in 0..<3 { #expect(allowed(.clickCapture, "pictlink")) }
        #expect(!allowed(.clickCapture, "pictlink"))
        #expect(allowed(.clickCapture, "fieldnotes"), "one project's clicks spent another's budget")
        let burst = ClientLimiter.Endpoint.claim.defaultLimit.burst
        for index in 0..<burst { #expect(allowed(.claim, index.isMultiple(of: 2) ? "pictlink" : "fieldnotes")) }
        #expect(!allowed(.claim, "another"), "a claim's budget is the network's, whichever project asks")
    }

    /// An event store that is down.
    struct UnavailableEventStore: EventRepository {
        static let down = StoreError.unavailable("the database is down (test)")
        func addEventCounts(_ counts: [EventCounterKey: Int64]) async throws { throw Self.down }
        func eventCounts(linkId: Int64, fromDay: Int) async throws -> [EventCount] { throw Self.down }
        func variantEventCounts(linkId: Int64, fromDay: Int) async throws -> [VariantEventCount] { throw Self.down }
        func clickCount(linkId: Int64) async throws -> Int64 { throw Self.down }
        func dailyEventCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [DailyEventCount] { throw Self.down }
        func confidenceCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [ConfidenceCount] { throw Self.down }
        func clickCounts(linkIds: [Int64], fromDay: Int) async throws -> [Int64: Int64] { throw Self.down }
    }

    /// Click events past the cap are dropped and counted, not held; the counters already held keep counting, and a
    /// failed write keeps them.
    @Test func eventCountersHaveACap() async throws {
        let store = UnavailableEventStore()
        let metrics = RelinkMetrics()
        let recorder = EventRecorder(store: store, interval: .seconds(60), capacity: 10, logger: Logger(label: "test"), metrics: metrics)
        for link in 1...30 { recorder.record(linkId: Int64(link), platform: .desktop, event: .click) }
        #expect(recorder.depth == 10)
        #expect(recorder.droppedCount == 20)
        recorder.record(linkId: 1, platform: .desktop, event: .click)
        #expect(recorder.droppedCount == 20)
        #expect(metrics.render().contains(#"relink_queue_dropped_total{queue="click_events"} 20"#))
        // The store is unavailable: the batch is put back, within the cap, for the next try.
        await recorder.flush()
        #expect(recorder.writtenCount == 0)
        #expect(recorder.depth == 10)
        #expect(recorder.droppedCount == 20)
        #expect(metrics.render().contains(#"relink_flush_failures_total{queue="click_events"} 1"#))
    }
    /// The buffer is in stripes by link, under one cap of distinct counters: a counter recorded from several threads
    /// is held once (a full buffer still counts it, and drops only new counters), and every event is counted once.
    @Test func eventCountersFromManyThreadsShareOneCap() async throws {
        let store = try SQLiteStore()
        let recorder = EventRecorder(store: store, interval: .seconds(60), capacity: 10, logger: Logger(label: "test"))
        onNewThread { for link in 1...10 { recorder.record(linkId: Int64(link), platform: .desktop, event: .click) } }
        #expect(recorder.depth == 10)
        onNewThread {
            recorder.record(linkId: 3, platform: .desktop, event: .click)
            recorder.record(linkId: 11, platform: .desktop, event: .click)
            recorder.record(linkId: 3, platform: .desktop, events: [.click, .redirect])
        }
        #expect(recorder.depth == 10)
        #expect(recorder.droppedCount == 2, "link 11's click and link 3's new redirect counter")
        #expect(recorder.unwrittenClicks(linkId: 3) == 3)
        #expect(recorder.recordedCount == 14)

        // A counter two threads record takes one place, not two: a third counter still fits under a cap of 2.
        let shared = EventRecorder(store: store, interval: .seconds(60), capacity: 2, logger: Logger(label: "test"))
        onNewThread { shared.record(linkId: 5, platform: .desktop, event: .click) }
        onNewThread { shared.record(linkId: 5, platform: .desktop, event: .click) }
        onNewThread { shared.record(linkId: 6, platform: .desktop, event: .click) }
        #expect(shared.depth == 2)
        #expect(shared.droppedCount == 0)
        #expect(shared.unwrittenClicks(linkId: 5) == 2)

        // Eight threads at once on the same two links' counters: two counters, every event counted once.
        let busy = EventRecorder(store: store, interval: .seconds(60), capacity: 2, logger: Logger(label: "test"))
        let threads = (0..<8).map { _ in
            Thread { for index in 0..<5_000 { busy.record(linkId: Int64(index % 2), platform: .android, event: .click) } }
        }
        for thread in threads { thread.start() }
        while threads.contains(where: { !$0.isFinished }) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(busy.unwrittenClicks(linkId: 0) + busy.unwrittenClicks(linkId: 1) == 40_000)
        #expect(busy.depth == 2)
        #expect(busy.droppedCount == 0)
    }

    /// Runs `body` on a thread of its own and waits for it.
    private func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        done.wait()
    }
}
