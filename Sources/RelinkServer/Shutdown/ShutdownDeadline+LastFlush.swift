import NIOConcurrencyHelpers

extension ShutdownDeadline {
    /// Runs a writer's last flush in a task of its own, so that the stop's cancellation (at the deadline) does not
    /// cut it short, and waits for it until `lastFlushEnd` at most: false when it did not finish in time or failed
    /// (its records stay counted as unwritten).
    @discardableResult
    func lastFlush(_ flush: @escaping @Sendable () async -> Bool) async -> Bool {
        let end = lastFlushEnd
        let outcome = NIOLockedValueBox(LastFlushOutcome())
        return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            outcome.withLockedValue { $0.waiter = continuation }
            Task {
                let written = await flush()
                outcome.withLockedValue { $0.take() }?.resume(returning: written)
            }
            Task {
                try? await Task.sleep(until: end, clock: .continuous)
                outcome.withLockedValue { $0.take() }?.resume(returning: false)
            }
        }
    }
}

/// Whichever of a last flush and its deadline comes first resumes the waiter.
private struct LastFlushOutcome {
    var waiter: CheckedContinuation<Bool, Never>?

    /// The waiter to resume, the first time only.
    mutating func take() -> CheckedContinuation<Bool, Never>? {
        defer { waiter = nil }
        return waiter
    }
}
