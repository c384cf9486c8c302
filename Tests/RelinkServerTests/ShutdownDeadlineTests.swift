import NIOConcurrencyHelpers
import Testing

@testable import RelinkServer

/// The writers' last flush at a stop: waited for until the deadline and its grace, never longer, and not cut short by
/// the stop's cancellation.
@Suite struct ShutdownDeadlineTests {
    @Test func aLastFlushThatNeverEndsIsGivenUpAfterTheDeadline() async throws {
        let deadline = ShutdownDeadline(timeout: .milliseconds(100))
        let started = ContinuousClock.now
        let written = await deadline.lastFlush {
            try? await Task.sleep(for: .seconds(3_600))
            return true
        }
        #expect(!written)
        let end = try #require(deadline.instant) + ShutdownDeadline.lastFlushGrace
        #expect(ContinuousClock.now >= end)
        #expect(ContinuousClock.now - started < .seconds(60))
    }

    @Test func aLastFlushOutlivesTheStopsCancellation() async {
        let deadline = ShutdownDeadline(timeout: .seconds(30))
        let finished = NIOLockedValueBox(false)
        let waiting = Task {
            await deadline.lastFlush {
                // Sleeps through the waiter's cancellation: the flush's own task is not cancelled with it.
                try? await Task.sleep(for: .milliseconds(300))
                finished.withLockedValue { $0 = !Task.isCancelled }
                return !Task.isCancelled
            }
        }
        waiting.cancel()
        #expect(await waiting.value)
        #expect(finished.withLockedValue { $0 })
    }

    @Test func theClockStartsOnce() {
        let deadline = ShutdownDeadline(timeout: .seconds(10))
        let first = deadline.begin()
        #expect(deadline.begin(at: .now + .seconds(5)) == first)
        #expect(deadline.instant == first)
    }
}
