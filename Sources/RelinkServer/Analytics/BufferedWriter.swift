import Logging
import NIOConcurrencyHelpers

/// Writes a `WriteBuffer` to the store: the buffer, in one or more stripes each under its own lock (so that records on
/// different keys do not queue for one lock), and flushes serialized by a `FlushStateMachine`. No lock is held across
/// an await: a flush takes each stripe's batch under its lock, writes the batches, and reports the result to each.
final class BufferedWriter<Buffer: WriteBuffer>: Sendable {
    private enum Turn {
        case write
        /// A write that covered the flush ended: whether it was written.
        case done(written: Bool)
    }

    private let stripes: [NIOLockedValueBox<Buffer>]
    private let flushes = NIOLockedValueBox(FlushStateMachine<CheckedContinuation<Turn, Never>>())
    private let write: @Sendable ([Buffer.Batch]) async throws -> Void
    private let queue: RelinkMetrics.Queue?
    private let metrics: RelinkMetrics?
    private let outages: StoreOutageLog?
    private let logger: Logger
    private let failureMessage: @Sendable (_ count: Int, _ dropped: Int) -> String

    /// - Parameters:
    ///   - stripes: how many buffers, each made by `buffer`.
    ///   - queue: the buffer's name in the metrics (none: no flush metrics).
    ///   - failureMessage: what is logged when a write of `count` items fails and `dropped` of them are dropped.
    ///   - write: writes one batch of each stripe (in stripe order) to the store.
    init(
        stripes: Int = 1, buffer: () -> Buffer, queue: RelinkMetrics.Queue?, metrics: RelinkMetrics?, outages: StoreOutageLog?,
        logger: Logger, failureMessage: @escaping @Sendable (_ count: Int, _ dropped: Int) -> String,
        write: @escaping @Sendable ([Buffer.Batch]) async throws -> Void
    ) {
        self.stripes = (0..<max(1, stripes)).map { _ in NIOLockedValueBox(buffer()) }
        self.queue = queue
        self.metrics = metrics
        self.outages = outages
        self.logger = logger
        self.failureMessage = failureMessage
        self.write = write
    }

    var stripeCount: Int { stripes.count }

    /// Reads or changes stripe `stripe` of the buffer, under its lock.
    @inline(__always)
    func withBuffer<T>(stripe: Int = 0, _ body: (inout Buffer) -> T) -> T {
        stripes[stripe].withLockedValue(body)
    }

    /// Writes what is buffered now; with a write running, waits for it and then writes what is left. Returns once
    /// everything recorded before the call has been written (true), or a write of it has failed (false: the store
    /// lacks it, so what reads the store now would read too little).
    @discardableResult
    @concurrent func flush() async -> Bool {
        let turn = await withCheckedContinuation { (waiter: CheckedContinuation<Turn, Never>) in
            if flushes.withLockedValue({ $0.flushRequested(waiter) }) == .write { waiter.resume(returning: .write) }
        }
        if case .done(let written) = turn { return written }
        let written = await writeBatch()
        switch flushes.withLockedValue({ $0.writeEnded() }) {
        case .finished(let resume):
            for waiter in resume { waiter.resume(returning: .done(written: written)) }
        case .handOff(let writer, let resume):
            for waiter in resume { waiter.resume(returning: .done(written: written)) }
            writer.resume(returning: .write)
        }
        return written
    }

    /// Whether the batch was written (or there was none).
    private func writeBatch() async -> Bool {
        let batches = stripes.map { stripe in stripe.withLockedValue { $0.takeBatch() } }
        let count = batches.reduce(0) { $0 + Buffer.count(of: $1) }
        guard count > 0 else {
            for stripe in stripes { stripe.withLockedValue { $0.writeSucceeded() } }
            return true
        }
        let start = ContinuousClock.now
        do {
            try await write(batches)
            if let queue { metrics?.flushed(queue, duration: .now - start, failed: false) }
            for stripe in stripes { stripe.withLockedValue { $0.writeSucceeded() } }
            return true
        } catch {
            if let queue { metrics?.flushed(queue, duration: .now - start, failed: true) }
            // Each stripe's batch back under its lock at once, so that a reader never sees it neither there nor being written.
            var dropped = 0
            for (stripe, batch) in zip(stripes, batches) { dropped += stripe.withLockedValue { $0.writeFailed(batch) } }
            if let queue { metrics?.queueDropped(queue, count: dropped) }
            let message = failureMessage(count, dropped)
            if let outages { outages.report("flush", message, error: error) } else { logger.error("\(message): \(error)") }
            return false
        }
    }
}
