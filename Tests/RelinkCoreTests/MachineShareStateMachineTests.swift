import RelinkTestSupport
import Testing

/// The test process's machine share (`RelinkTestSupport`): tests that measure time hold it alone, loading tests
/// together, first come first served.
@Suite("Machine share")
struct MachineShareStateMachineTests {
    typealias Machine = MachineShareStateMachine

    @Test func aTimedTestHoldsTheMachineAlone() {
        var machine = Machine()
        #expect(machine.acquire(.timed, id: 1) == .proceed)
        #expect(machine.acquire(.timed, id: 2) == .wait)
        #expect(machine.acquire(.loading, id: 3) == .wait)
        #expect(machine.release(.timed) == [2])
        #expect(machine.release(.timed) == [3])
        #expect(machine.release(.loading) == [])
        #expect(machine.acquire(.timed, id: 4) == .proceed)
    }

    @Test func loadingTestsShareTheMachineAndATimedOneWaitsForAllOfThem() {
        var machine = Machine()
        #expect(machine.acquire(.loading, id: 1) == .proceed)
        #expect(machine.acquire(.loading, id: 2) == .proceed)
        #expect(machine.acquire(.timed, id: 3) == .wait)
        // Behind a waiting timed test, a loading one waits too: the timed one is not starved.
        #expect(machine.acquire(.loading, id: 4) == .wait)
        #expect(machine.release(.loading) == [])
        #expect(machine.release(.loading) == [3])
        #expect(machine.release(.timed) == [4])
    }

    @Test func theLoadingTestsAtTheHeadOfTheLineGoInTogether() {
        var machine = Machine()
        #expect(machine.acquire(.timed, id: 1) == .proceed)
        #expect(machine.acquire(.loading, id: 2) == .wait)
        #expect(machine.acquire(.loading, id: 3) == .wait)
        #expect(machine.acquire(.timed, id: 4) == .wait)
        #expect(machine.acquire(.loading, id: 5) == .wait)
        #expect(machine.release(.timed) == [2, 3])
        #expect(machine.release(.loading) == [])
        #expect(machine.release(.loading) == [4])
        #expect(machine.release(.timed) == [5])
    }

    /// The share itself: a timed test never overlaps a loading one.
    @Test func holdingKeepsTimedTestsApartFromLoadingOnes() async {
        let share = MachineShare()
        let log = Log()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                let use: Machine.Use = index % 3 == 0 ? .timed : .loading
                group.addTask {
                    await share.holding(use) {
                        await log.enter(use)
                        try? await Task.sleep(for: .milliseconds(5))
                        await log.leave(use)
                    }
                }
            }
        }
        #expect(await log.overlaps == 0)
        #expect(await log.entered == 12)
    }

    actor Log {
        var timed = 0
        var loading = 0
        var overlaps = 0
        var entered = 0

        func enter(_ use: Machine.Use) {
            entered += 1
            switch use {
            case .timed: timed += 1
            case .loading: loading += 1
            }
            if timed > 1 || (timed == 1 && loading > 0) { overlaps += 1 }
        }

        func leave(_ use: Machine.Use) {
            switch use {
            case .timed: timed -= 1
            case .loading: loading -= 1
            }
        }
    }
}
