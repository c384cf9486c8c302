import Foundation
import GRDB

/// Read-only connections to the database file, one for each thread that looks links up (the event loops), used
/// without a pool: GRDB's reader pool hands its connections out through dispatch queues, and with clicks spread over
/// many links the event loops blocked there (docs/performance.md#sqlite-lookups-on-a-connection-per-thread). A
/// thread's own connection is never contended. At most `maximum` are opened; other threads use the pool.
final class ThreadReaders: @unchecked Sendable {
    // @unchecked: `readers` is guarded by `lock`; a thread's slot is only touched by that thread.

    /// A thread's entry: weak, so the connections close with the store (which holds them), not with the thread; nil
    /// for a thread that uses the pool (past `maximum`, or its connection could not be opened), so it does not try
    /// again on every lookup.
    private final class Slot {
        weak var reader: DatabaseQueue?
    }

    static let maximum = 32

    private let path: String
    private let configuration: Configuration
    private let key = "relink.sqlite-reader.\(UUID().uuidString)"
    private let lock = NSLock()
    private var readers: [DatabaseQueue] = []
    private var reserved = 0

    init(path: String, configuration: Configuration) {
        self.path = path
        var configuration = configuration
        configuration.readonly = true
        configuration.label = (configuration.label ?? "relink") + ".thread-reader"
        self.configuration = configuration
    }

    /// The calling thread's connection, opened on first use; nil past `maximum` threads or when it cannot be opened.
    func reader() -> DatabaseQueue? {
        let slots = Thread.current.threadDictionary
        if let slot = slots[key] as? Slot { return slot.reader }
        let slot = Slot()
        slots[key] = slot
        // A place is taken before opening, so that threads opening at once cannot pass `maximum`.
        guard
            lock.withLock({ () -> Bool in
                guard reserved < Self.maximum else { return false }
                reserved += 1
                return true
            })
        else { return nil }
        guard let reader = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        lock.withLock { readers.append(reader) }
        slot.reader = reader
        return reader
    }
}
