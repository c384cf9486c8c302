import Atomics
import Testing

@testable import RelinkServer

/// Click limits by link id, driven event by event.
@Suite("Click limit state machine") struct ClickLimitStateMachineTests {
    let start = ContinuousClock.now

    /// The first click reads; clicks arriving during the read wait for it and are answered from it, in order.
    @Test func concurrentFirstClicksWaitForOneRead() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, now: start) == .read)
        #expect(limits.click(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, now: start) == .wait)
        #expect(limits.wait(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, waiter: 1, now: start) == .wait)
        #expect(limits.click(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, now: start) == .wait)
        #expect(limits.wait(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, waiter: 2, now: start) == .wait)
        // A crawler's click waits too, but takes nothing.
        #expect(limits.click(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: false, now: start) == .wait)
        #expect(limits.wait(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: false, waiter: 3, now: start) == .wait)
        let (answer, resume) = limits.readSucceeded(linkId: 7, count: 0, start: start, limit: 2, taking: true)
        #expect(answer == .allow)
        #expect(resume.map(\.0) == [1, 2, 3])
        #expect(resume.map(\.1) == [.allow, .refuse, .refuse])
        // Fresh: answered from memory.
        #expect(limits.click(linkId: 7, projectId: "pictlink", version: 0, limit: 2, taking: true, now: start + .milliseconds(500)) == .refuse)
    }

    /// A waiter that comes back after the read ended is answered at once.
    @Test func aWaiterAfterTheReadIsAnsweredAtOnce() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 1, taking: true, now: start) == .read)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 1, taking: true, now: start) == .wait)
        let (answer, resume) = limits.readSucceeded(linkId: 1, count: 0, start: start, limit: 1, taking: true)
        #expect(answer == .allow && resume.isEmpty)
        #expect(limits.wait(linkId: 1, projectId: "pictlink", version: 0, limit: 1, taking: true, waiter: 9, now: start) == .refuse)
    }

    /// The store's count counts: a link read at its limit refuses.
    @Test func theStoresCountIsTheStart() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 3, taking: true, now: start) == .read)
        #expect(limits.readSucceeded(linkId: 1, count: 2, start: start, limit: 3, taking: true).0 == .allow)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 3, taking: true, now: start) == .refuse)
        // Looking (a crawler, HEAD, the debug page) takes nothing, and is refused too at the limit.
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 3, taking: false, now: start) == .refuse)
        // A raised limit (an edit) lets clicks through again.
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 4, taking: true, now: start) == .allow)
    }

    /// After a second one click reads again while the others go on with the count in memory; the read never loses
    /// the clicks taken meanwhile, and adds what other instances took.
    @Test func aStaleCountIsReadAgainByOneClick() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: start) == .read)
        #expect(limits.readSucceeded(linkId: 1, count: 0, start: start, limit: 5, taking: true).0 == .allow)
        let later = start + .seconds(2)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .read)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .allow)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: false, now: later) == .allow)
        // The read saw none of the two clicks (not written yet): 2 known, and the reader takes the third.
        #expect(limits.readSucceeded(linkId: 1, count: 0, start: later, limit: 5, taking: true).0 == .allow)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .allow)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .allow)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .refuse)

        // Another instance's clicks: a read finds more than this instance knows.
        var other = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(other.click(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true, now: start) == .read)
        #expect(other.readSucceeded(linkId: 2, count: 1, start: start, limit: 5, taking: true).0 == .allow)
        #expect(other.click(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .read)
        #expect(other.readSucceeded(linkId: 2, count: 4, start: later, limit: 5, taking: true).0 == .allow)
        #expect(other.click(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true, now: later) == .refuse)
    }

    /// A failed first read fails its waiters and forgets the link: the next click reads again. A failed later read
    /// keeps the count.
    @Test func aFailedReadFailsItsWaitersAndIsTriedAgain() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 2, taking: true, now: start) == .read)
        #expect(limits.wait(linkId: 1, projectId: "pictlink", version: 0, limit: 2, taking: true, waiter: 4, now: start) == .wait)
        #expect(limits.readFailed(linkId: 1) == [4])
        #expect(limits.count == 0)
        // A waiter coming back after the failure reads itself.
        #expect(limits.wait(linkId: 1, projectId: "pictlink", version: 0, limit: 2, taking: true, waiter: 5, now: start) == .read)
        #expect(limits.readSucceeded(linkId: 1, count: 1, start: start, limit: 2, taking: true).0 == .allow)
        let later = start + .seconds(2)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 2, taking: true, now: later) == .read)
        #expect(limits.readFailed(linkId: 1).isEmpty)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 0, limit: 2, taking: false, now: later) == .read)
        #expect(limits.readSucceeded(linkId: 1, count: 0, start: later, limit: 2, taking: false).0 == .refuse)
    }

    /// Links are held by id up to the capacity; idle ones make room, busy ones do not, and a click finding no room
    /// reads for itself.
    @Test func theTableIsCapped() {
        var limits = ClickLimitStateMachine<Int>(capacity: 2)
        for link: Int64 in [1, 2] {
            #expect(limits.click(linkId: link, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start) == .read)
            #expect(limits.readSucceeded(linkId: link, count: 0, start: start, limit: 9, taking: true).0 == .allow)
        }
        #expect(limits.click(linkId: 3, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(100)) == .readUntracked)
        #expect(limits.count == 2)
        // Link 2 clicked again: only link 1 is idle a second later.
        #expect(limits.click(linkId: 2, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(900)) == .allow)
        #expect(limits.click(linkId: 3, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(1_500)) == .read)
        #expect(limits.count == 2)
        #expect(limits.click(linkId: 2, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(1_600)) == .read)
        // A link whose read runs is never let go.
        #expect(limits.click(linkId: 4, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .seconds(5)) == .readUntracked)
        // A read for a link that is not held answers from the count alone.
        #expect(limits.readSucceeded(linkId: 4, count: 9, start: start, limit: 9, taking: true).0 == .refuse)
    }

    /// A full table of busy links is looked through once per link that can go idle, not for every new link's click:
    /// each look copies the whole table under the lock.
    @Test func aFullTableIsNotLookedThroughForEveryClick() {
        var limits = ClickLimitStateMachine<Int>(capacity: 100)
        for link: Int64 in 1...100 {
            let clicked = start + .milliseconds(link)
            #expect(limits.click(linkId: link, projectId: "pictlink", version: 0, limit: 9, taking: true, now: clicked) == .read)
            #expect(limits.readSucceeded(linkId: link, count: 0, start: clicked, limit: 9, taking: true).0 == .allow)
        }
        for link: Int64 in 101...1_100 {
            #expect(
                limits.click(linkId: link, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(200 + link / 10))
                    == .readUntracked)
        }
        #expect(limits.sweeps == 1, "\(limits.sweeps) looks through the table for 1,000 clicks")
        // Link 1 is idle a second after its click: the next new link takes its place.
        #expect(limits.click(linkId: 2_000, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(1_001)) == .read)
        #expect(limits.sweeps == 2)
        #expect(limits.count == 100)
        // A read that runs may end any time: the table is looked through again, but not more often than every 10 ms.
        for link: Int64 in 3_000..<3_050 {
            #expect(
                limits.click(linkId: link, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(1_002))
                    == .readUntracked)
        }
        #expect(limits.sweeps == 2)
        // 10 ms on, links 2 to 12 are idle.
        #expect(limits.click(linkId: 4_000, projectId: "pictlink", version: 0, limit: 9, taking: true, now: start + .milliseconds(1_012)) == .read)
        #expect(limits.sweeps == 3)
        #expect(limits.count == 90)
    }

    /// Each project has its own places: one whose links fill its share (a key holder's own links, clicked by the
    /// thousand) leaves another project's links held, and so exact.
    @Test func eachProjectHasItsOwnPlacesInTheTable() {
        var limits = ClickLimitStateMachine<Int>(capacity: 2)
        for link: Int64 in [1, 2] {
            #expect(limits.click(linkId: link, projectId: "busy", version: 0, limit: 9, taking: true, now: start) == .read)
        }
        #expect(limits.click(linkId: 3, projectId: "busy", version: 0, limit: 9, taking: true, now: start) == .readUntracked)
        #expect(limits.click(linkId: 4, projectId: "quiet", version: 0, limit: 1, taking: true, now: start) == .read)
        #expect(limits.click(linkId: 4, projectId: "quiet", version: 0, limit: 1, taking: true, now: start) == .wait)
        #expect(limits.count == 3)
        // A failed first read gives its place back to its own project.
        #expect(limits.readFailed(linkId: 1).isEmpty)
        #expect(limits.click(linkId: 5, projectId: "busy", version: 0, limit: 9, taking: true, now: start) == .read)
    }

    /// A link changed since its count was read (its limit removed and set again, disabled and enabled) is read again
    /// before any click of the new version passes: the clicks made meanwhile never came through the table (an attack
    /// on loopback passed 29 more clicks on a link of 41 clicks and a limit of 30).
    @Test func aChangedLinkIsReadAgainBeforeItsClicksPass() {
        var limits = ClickLimitStateMachine<Int>(capacity: 10)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 1, limit: 30, taking: true, now: start) == .read)
        #expect(limits.readSucceeded(linkId: 1, count: 0, start: start, limit: 30, taking: true).0 == .allow)
        // The limit was removed (version 2: 40 clicks, not through here), then set again (version 3).
        let later = start + .milliseconds(200)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 3, limit: 30, taking: true, now: later) == .read)
        #expect(limits.click(linkId: 1, projectId: "pictlink", version: 3, limit: 30, taking: true, now: later) == .wait)
        #expect(limits.wait(linkId: 1, projectId: "pictlink", version: 3, limit: 30, taking: true, waiter: 1, now: later) == .wait)
        let (answer, resume) = limits.readSucceeded(linkId: 1, count: 41, start: later, limit: 30, taking: true)
        #expect(answer == .refuse)
        #expect(resume.map(\.1) == [.refuse])
        // A change arriving while a read runs: that read may have missed the clicks made around the table, so the
        // reading click reads again and the others wait for the second read.
        #expect(limits.click(linkId: 2, projectId: "pictlink", version: 1, limit: 5, taking: true, now: later) == .read)
        #expect(limits.click(linkId: 2, projectId: "pictlink", version: 2, limit: 5, taking: true, now: later) == .wait)
        #expect(limits.wait(linkId: 2, projectId: "pictlink", version: 2, limit: 5, taking: true, waiter: 2, now: later) == .wait)
        let first = limits.readSucceeded(linkId: 2, count: 3, start: later, limit: 5, taking: true)
        #expect(first.0 == .read && first.resume.isEmpty)
        let second = limits.readSucceeded(linkId: 2, count: 5, start: later, limit: 5, taking: true)
        #expect(second.0 == .refuse && second.resume.map(\.1) == [.refuse])
    }

    /// The driver reads again when the link changed while it read (the read may lack clicks made around the table),
    /// and a click of the new version waits for that second read.
    @Test func aReadDuringAChangeOfTheLinkIsMadeAgain() async throws {
        let limits = ClickLimits()
        let reads = ManagedAtomic(0)
        var changed: Task<Bool, any Error>?
        let first = try await limits.take(linkId: 3, projectId: "pictlink", version: 1, limit: 5, taking: true) {
            guard reads.loadThenWrappingIncrement(ordering: .relaxed) == 0 else { return 5 }
            changed = Task {
                try await limits.take(linkId: 3, projectId: "pictlink", version: 2, limit: 5, taking: true) {
                    reads.wrappingIncrement(ordering: .relaxed)
                    return 5
                }
            }
            try await Task.sleep(for: .milliseconds(50))
            return 0
        }
        #expect(!first)
        #expect(try await changed?.value == false)
        #expect(reads.load(ordering: .relaxed) == 2, "one read before the change, one after")
    }

    /// The driver: clicks arriving together on a link share one read of the store, and exactly the limit pass; a
    /// failed first read fails the clicks waiting for it, and the next click reads again.
    @Test func clicksTogetherShareOneReadAndPassExactlyTheLimit() async throws {
        let limits = ClickLimits()
        let reads = ManagedAtomic(0)
        let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    try await limits.take(linkId: 1, projectId: "pictlink", version: 0, limit: 5, taking: true) {
                        reads.wrappingIncrement(ordering: .relaxed)
                        try await Task.sleep(for: .milliseconds(50))
                        return 0
                    }
                }
            }
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(allowed == 5)
        #expect(reads.load(ordering: .relaxed) == 1)

        struct Unavailable: Error {}
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await limits.take(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true) {
                            try await Task.sleep(for: .milliseconds(50))
                            throw Unavailable()
                        }
                        return false
                    } catch {
                        return error is Unavailable
                    }
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 10)
        #expect(try await limits.take(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true) { 4 })
        #expect(try await !limits.take(linkId: 2, projectId: "pictlink", version: 0, limit: 5, taking: true) { 4 })
    }
}
