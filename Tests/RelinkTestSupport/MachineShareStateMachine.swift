/// Who holds the machine among the tests that care: a test whose verdict rests on elapsed time holds it alone, and
/// tests that load the machine share it with each other. Waiters are let in first come, first served, so neither
/// kind starves the other. Ordinary tests are not counted and run beside either.
public struct MachineShareStateMachine: Sendable {
    public enum Use: Sendable, Equatable {
        /// Measures time: a timeout, a deadline, a bound on how long something took.
        case timed
        /// Loads the machine: many requests, processes of its own, long computations.
        case loading
    }

    public enum AcquireAction: Sendable, Equatable {
        case proceed
        case wait
    }

    private enum State: Sendable {
        case idle
        case timed
        case loading(count: Int)
    }

    private var state = State.idle
    private var waiting: [(use: Use, id: Int)] = []

    public init() {}

    /// A test of `use` (known as `id`) asks for the machine: it may go on, or must wait to be resumed by a release.
    public mutating func acquire(_ use: Use, id: Int) -> AcquireAction {
        guard waiting.isEmpty else {
            waiting.append((use, id))
            return .wait
        }
        switch (state, use) {
        case (.idle, .timed):
            state = .timed
            return .proceed
        case (.idle, .loading):
            state = .loading(count: 1)
            return .proceed
        case (.loading(let count), .loading):
            state = .loading(count: count + 1)
            return .proceed
        case (.timed, _), (.loading, .timed):
            waiting.append((use, id))
            return .wait
        }
    }

    /// A test of `use` is done with the machine: the ids of the waiters it lets in.
    public mutating func release(_ use: Use) -> [Int] {
        switch state {
        case .idle:
            preconditionFailure("released a machine nobody held")
        case .timed:
            state = .idle
        case .loading(let count):
            state = count > 1 ? .loading(count: count - 1) : .idle
        }
        guard case .idle = state, let first = waiting.first else { return [] }
        switch first.use {
        case .timed:
            waiting.removeFirst()
            state = .timed
            return [first.id]
        case .loading:
            // Every loading test at the head of the line goes in together; the next timed one waits for them.
            let admitted = waiting.prefix { $0.use == .loading }
            waiting.removeFirst(admitted.count)
            state = .loading(count: admitted.count)
            return admitted.map(\.id)
        }
    }
}
