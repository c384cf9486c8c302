import Foundation

/// The pool's connections that have served link lookups, so that each is set up for them once.
final class LookupConnections: @unchecked Sendable {
    // @unchecked: `seen` is guarded by `lock`.
    private let lock = NSLock()
    private var seen: Set<Int> = []

    /// Past this many, the set starts again (a connection set up twice is set up the same way).
    static let capacity = 10_000

    /// Whether `id` is new here (and now known).
    func isNew(_ id: Int) -> Bool {
        lock.withLock {
            if seen.count >= Self.capacity { seen.removeAll() }
            return seen.insert(id).inserted
        }
    }
}
