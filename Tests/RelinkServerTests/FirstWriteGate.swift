import NIOConcurrencyHelpers

/// Holds the first write a test store is asked for until `open()`, so that a test can act while a flush is caught in
/// the middle of it; the writes after it go straight through.
final class FirstWriteGate: Sendable {
    private let state = NIOLockedValueBox<(first: Bool, open: Bool, waiting: CheckedContinuation<Void, Never>?)>((true, false, nil))

    /// Lets the held write (and every later one) go on.
    func open() {
        state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            state.open = true
            defer { state.waiting = nil }
            return state.waiting
        }?.resume()
    }

    /// Returns at once, except for the first write before `open()`, which waits for it.
    func pass() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let held = state.withLockedValue { state in
                defer { state.first = false }
                guard state.first, !state.open else { return false }
                state.waiting = continuation
                return true
            }
            if !held { continuation.resume() }
        }
    }
}
