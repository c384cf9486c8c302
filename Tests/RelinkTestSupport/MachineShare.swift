import Synchronization
import Testing

/// The machine shared by the test process's suites: tests that measure time run alone among those that load it
/// (`MachineShareStateMachine`). On a 2-core machine a server in the test process, beside thousands of requests of a
/// load test, was seen to answer tens of seconds late, past every timeout a test measures.
public final class MachineShare: Sendable {
    public static let shared = MachineShare()

    public init() {}

    private struct Waiters {
        var machine = MachineShareStateMachine()
        var continuations: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextId = 0
    }

    private let waiters = Mutex(Waiters())
    /// What the current task holds already: a test inside a suite with the same trait asks once.
    @TaskLocal private static var held: MachineShareStateMachine.Use?

    /// Runs `body` once the machine may be used as `use`, and lets the next waiters in after it.
    public func holding<T: Sendable>(_ use: MachineShareStateMachine.Use, _ body: () async throws -> T) async rethrows -> T {
        if Self.held != nil { return try await body() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let proceed = waiters.withLock { waiters in
                let id = waiters.nextId
                waiters.nextId += 1
                switch waiters.machine.acquire(use, id: id) {
                case .proceed:
                    return true
                case .wait:
                    waiters.continuations[id] = continuation
                    return false
                }
            }
            if proceed { continuation.resume() }
        }
        defer {
            let resumed = waiters.withLock { waiters in
                waiters.machine.release(use).compactMap { waiters.continuations.removeValue(forKey: $0) }
            }
            for continuation in resumed { continuation.resume() }
        }
        return try await Self.$held.withValue(use) { try await body() }
    }
}

/// `.measuresTime` and `.loadsTheMachine`: on a suite, every test in it.
public struct MachineShareTrait: TestTrait, SuiteTrait, TestScoping {
    let use: MachineShareStateMachine.Use

    public var isRecursive: Bool { true }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        try await MachineShare.shared.holding(use) { try await function() }
    }
}

extension Trait where Self == MachineShareTrait {
    /// The test's verdict rests on how long something took (a timeout, a deadline, a bound): it runs while no test
    /// that loads the machine does, and no other such test.
    public static var measuresTime: Self { MachineShareTrait(use: .timed) }

    /// The test loads the machine (many requests, processes of its own, long computations): it runs beside other
    /// such tests, but not beside a test that measures time.
    public static var loadsTheMachine: Self { MachineShareTrait(use: .loading) }
}
