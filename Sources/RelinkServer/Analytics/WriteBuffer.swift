/// What a `BufferedWriter` holds between writes to the store, as a small state machine: the recorder's events
/// (`record`-like methods returning a `RecordAction`) and the writer's (`takeBatch`, then `writeSucceeded` or
/// `writeFailed`). The writer takes one batch at a time, so "being written" is one batch.
protocol WriteBuffer: Sendable {
    associatedtype Batch: Sendable

    /// Takes what is buffered, to be written; it counts as unwritten ("being written") until the write ends.
    mutating func takeBatch() -> Batch
    /// The store took the batch taken last.
    mutating func writeSucceeded()
    /// The store did not take `batch`, the batch taken last: what the buffer keeps of it goes to the next write.
    /// - Returns: how many recorded items were dropped.
    mutating func writeFailed(_ batch: Batch) -> Int
    /// Items in `batch` (none: nothing to write).
    static func count(of batch: Batch) -> Int
}

/// What became of a recorded item.
enum RecordAction: Equatable {
    case kept
    /// The buffer was full: dropped (and counted).
    case dropped
}
