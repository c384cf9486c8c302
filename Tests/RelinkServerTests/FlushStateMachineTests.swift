import Testing

@testable import RelinkServer

/// The flushes of a buffered writer, one write at a time, driven event by event.
@Suite("Flush state machine") struct FlushStateMachineTests {
    @Test func aFlushWhileIdleWritesAndEndsIdle() {
        var flushes = FlushStateMachine<Int>()
        #expect(!flushes.isWriting)
        #expect(flushes.flushRequested(1) == .write)
        #expect(flushes.isWriting)
        guard case .finished(let resume) = flushes.writeEnded() else {
            Issue.record("not finished")
            return
        }
        #expect(resume.isEmpty)
        #expect(!flushes.isWriting)
        // Idle again: the next flush writes at once.
        #expect(flushes.flushRequested(2) == .write)
    }

    /// Flushes asked during a write wait for it; the first of them then writes what was recorded meanwhile, and the
    /// others return when that write (which covers them) ends, not before.
    @Test func flushesAskedDuringAWriteWaitForItAndTheNext() {
        var flushes = FlushStateMachine<Int>()
        #expect(flushes.flushRequested(1) == .write)
        #expect(flushes.flushRequested(2) == .wait)
        #expect(flushes.flushRequested(3) == .wait)
        guard case .handOff(let writer, let resume) = flushes.writeEnded() else {
            Issue.record("no hand-off")
            return
        }
        #expect(writer == 2)
        #expect(resume.isEmpty, "3 asked after the first batch was taken: the next write must cover it")
        #expect(flushes.isWriting)
        // Asked during the second write: waits for a third.
        #expect(flushes.flushRequested(4) == .wait)
        guard case .handOff(let third, let covered) = flushes.writeEnded() else {
            Issue.record("no hand-off")
            return
        }
        #expect(third == 4)
        #expect(covered == [3])
        guard case .finished(let last) = flushes.writeEnded() else {
            Issue.record("not finished")
            return
        }
        #expect(last.isEmpty)
        #expect(!flushes.isWriting)
    }

    /// Waiters that asked with the hand-off's writer return with its write.
    @Test func waitersAskingTogetherReturnWithOneWrite() {
        var flushes = FlushStateMachine<Int>()
        #expect(flushes.flushRequested(1) == .write)
        for waiter in 2...5 { #expect(flushes.flushRequested(waiter) == .wait) }
        guard case .handOff(let writer, let none) = flushes.writeEnded() else {
            Issue.record("no hand-off")
            return
        }
        #expect(writer == 2 && none.isEmpty)
        guard case .finished(let resume) = flushes.writeEnded() else {
            Issue.record("not finished")
            return
        }
        #expect(resume == [3, 4, 5])
    }

    @Test func aWriteEndedWhileIdleResumesNobody() {
        var flushes = FlushStateMachine<Int>()
        guard case .finished(let resume) = flushes.writeEnded() else {
            Issue.record("not finished")
            return
        }
        #expect(resume.isEmpty)
        #expect(!flushes.isWriting)
    }
}
