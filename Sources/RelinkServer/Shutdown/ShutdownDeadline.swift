import NIOConcurrencyHelpers

/// When a graceful stop must be over: `timeout` after it began (`relink serve --shutdown-timeout`). The writers' last
/// flushes wait for the store until then and a little after, never longer, so a store that does not answer cannot
/// hold the stop; what they could not write is counted (`StoreBacklog`).
public final class ShutdownDeadline: Sendable {
    public let timeout: Duration
    /// After the deadline, how long the writers' last flushes may still finish: the HTTP server's requests are cut at
    /// the deadline, and what they recorded meanwhile still gets a turn.
    public static let lastFlushGrace = Duration.milliseconds(1_000)
    private let end = NIOLockedValueBox<ContinuousClock.Instant?>(nil)

    public init(timeout: Duration = .seconds(10)) {
        self.timeout = timeout
    }

    /// Starts the clock, once: later calls keep the first instant.
    @discardableResult
    public func begin(at now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        end.withLockedValue { end in
            if let end { return end }
            end = now + timeout
            return now + timeout
        }
    }

    /// The deadline, if the stop has begun.
    public var instant: ContinuousClock.Instant? { end.withLockedValue { $0 } }

    /// When the writers' last flushes stop waiting: the deadline and its grace (the deadline starts now if no stop
    /// began it: a service stopped by other means).
    var lastFlushEnd: ContinuousClock.Instant { begin() + Self.lastFlushGrace }
}
