import NIOConcurrencyHelpers

/// The most connections open at once, over every listener: past it a new connection is closed as soon as it is
/// accepted, so clients holding connections cannot use up the process's file descriptors and lock everyone out.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = NIOLockedValueBox(0)

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    var count: Int { open.withLockedValue { $0 } }

    /// Takes a place; false when all are taken.
    func acquire() -> Bool {
        open.withLockedValue { open in
            guard open < maximum else { return false }
            open += 1
            return true
        }
    }

    func release() { open.withLockedValue { $0 -= 1 } }
}
