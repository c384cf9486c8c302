import NIOConcurrencyHelpers

/// The most connections open at once, over every listener: past it a new connection is closed as soon as it is
/// accepted, so clients holding connections cannot use up the process's file descriptors and lock everyone out.
final class ConnectionLimit: Sendable {
    private struct Count {
        var open = 0
        /// The most open at once since `takePeak()` last read it.
        var peak = 0
    }

    let maximum: Int
    private let count = NIOLockedValueBox(Count())

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    var open: Int { count.withLockedValue { $0.open } }

    /// Takes a place; false when all are taken.
    func acquire() -> Bool {
        count.withLockedValue { count in
            guard count.open < maximum else { return false }
            count.open += 1
            count.peak = max(count.peak, count.open)
            return true
        }
    }

    func release() { count.withLockedValue { $0.open -= 1 } }

    /// The most connections open at once since the last call (or since the start), and how many are open now.
    func takePeak() -> (peak: Int, open: Int) {
        count.withLockedValue { count in
            defer { count.peak = count.open }
            return (count.peak, count.open)
        }
    }
}
