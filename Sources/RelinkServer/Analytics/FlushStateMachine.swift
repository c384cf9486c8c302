/// The flushes of one buffered writer, one write at a time. A flush asked while a write runs waits for it, and then
/// the first of those waiting writes what was recorded meanwhile while the others wait for that write: so a flush
/// returns once everything recorded before it was asked has been written (or its write failed), and two writes never
/// hold batches at once (a buffer's "being written" is one batch).
///
/// Pure: the writer (`BufferedWriter`) takes the batch, writes it and resumes the waiters as the actions say.
struct FlushStateMachine<Waiter: Sendable>: Sendable {
    private enum State {
        case idle
        /// A write runs. `covered` asked before its batch was taken and return when it ends; `waiting` asked during
        /// it and need the next one.
        case writing(covered: [Waiter], waiting: [Waiter])
    }

    enum RequestAction: Equatable {
        /// The caller takes the batch and writes it now, then reports `writeEnded`.
        case write
        /// The caller's waiter is kept: it is resumed to write (`WriteEndedAction.handOff`) or when a write that
        /// covers it has ended.
        case wait
    }

    enum WriteEndedAction {
        /// Nobody waits for another write: these return.
        case finished(resume: [Waiter])
        /// `resume` return; `writer` takes the next batch and writes it, for itself and for those that asked with it.
        case handOff(writer: Waiter, resume: [Waiter])
    }

    private var state = State.idle

    /// Whether a write runs.
    var isWriting: Bool {
        if case .writing = state { return true }
        return false
    }

    /// A flush is asked; `waiter` resumes it if it has to wait.
    mutating func flushRequested(_ waiter: Waiter) -> RequestAction {
        switch state {
        case .idle:
            state = .writing(covered: [], waiting: [])
            return .write
        case .writing(let covered, var waiting):
            // Out of `state` first, so that the array is not shared while it grows.
            state = .idle
            waiting.append(waiter)
            state = .writing(covered: covered, waiting: waiting)
            return .wait
        }
    }

    /// The running write ended (written or not: a failed batch is back in the buffer, for the next write).
    mutating func writeEnded() -> WriteEndedAction {
        switch state {
        case .idle:
            return .finished(resume: [])
        case .writing(let covered, let waiting):
            guard let writer = waiting.first else {
                state = .idle
                return .finished(resume: covered)
            }
            state = .writing(covered: Array(waiting.dropFirst()), waiting: [])
            return .handOff(writer: writer, resume: covered)
        }
    }
}
