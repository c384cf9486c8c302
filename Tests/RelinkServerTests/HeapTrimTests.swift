import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Testing

@testable import RelinkServer

@Suite("Free heap given back after a flood of connections")
struct HeapTrimTests {
    @Test func aFallFromTheHighestCountSinceTheLastTrimTrims() {
        var policy = HeapTrimPolicy(threshold: 100)
        #expect(policy.look(peak: 0, open: 0) == .none)
        // A count that stays high is memory in use.
        #expect(policy.look(peak: 5_000, open: 5_000) == .none)
        #expect(policy.look(peak: 5_000, open: 4_950) == .none)
        // A fall spread over several looks adds up.
        #expect(policy.look(peak: 4_950, open: 4_920) == .none)
        #expect(policy.look(peak: 4_920, open: 4_900) == .trim(from: 5_000))
        // Trimmed: the next fall counts from the count then.
        #expect(policy.look(peak: 4_900, open: 4_850) == .none)
        #expect(policy.look(peak: 4_850, open: 4_800) == .trim(from: 4_900))
        // A flood that came and went between two looks is seen through its peak.
        #expect(policy.look(peak: 9_000, open: 10) == .trim(from: 9_000))
        #expect(policy.look(peak: 10, open: 10) == .none)
    }

    @Test func theLimitReportsThePeakSinceItWasLastAsked() {
        let limit = ConnectionLimit(maximum: 10)
        for _ in 0..<7 { #expect(limit.acquire()) }
        for _ in 0..<5 { limit.release() }
        #expect(limit.takePeak() == (7, 2))
        #expect(limit.takePeak() == (2, 2))
        for _ in 0..<10 { _ = limit.acquire() }
        #expect(limit.open == 10)
        #expect(!limit.acquire())
        #expect(limit.takePeak() == (10, 10))
    }

    /// The service trims once the connections have fallen, and not while they stay.
    @Test func theServiceTrimsAfterAFallAndNotBefore() async throws {
        let limit = ConnectionLimit(maximum: 10_000)
        let trims = NIOLockedValueBox(0)
        let logger = Logger(label: "heap-trim-test")
        let service = HeapTrimService(limit: limit, interval: .milliseconds(20), logger: logger) { trims.withLockedValue { $0 += 1 } }
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        for _ in 0..<1_000 { _ = limit.acquire() }
        try await Task.sleep(for: .milliseconds(200))
        let whileOpen = trims.withLockedValue { $0 }
        for _ in 0..<1_000 { limit.release() }
        let deadline = ContinuousClock.now + .seconds(30)
        while trims.withLockedValue({ $0 }) == 0, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        try await Task.sleep(for: .milliseconds(200))
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(whileOpen == 0)
        #expect(trims.withLockedValue { $0 } == 1)
    }
}
