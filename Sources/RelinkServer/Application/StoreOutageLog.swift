import Logging
import NIOConcurrencyHelpers

/// Where store failures are reported: each is counted in the metrics, and logged at most once per `interval` with
/// the number left unlogged since, so an outage under load writes a line per interval, not one per request.
final class StoreOutageLog: Sendable {
    private struct State {
        var lastLogged: ContinuousClock.Instant?
        var unlogged = 0
    }

    private let state = NIOLockedValueBox(State())
    private let interval: Duration
    private let logger: Logger
    private let metrics: RelinkMetrics?

    init(interval: Duration = .seconds(10), logger: Logger, metrics: RelinkMetrics?) {
        self.interval = interval
        self.logger = logger
        self.metrics = metrics
    }

    /// - Parameters:
    ///   - operation: what the store was asked for (`lookup`, `api`, `flush`): the metric's label.
    ///   - message: what failed, without the error.
    func report(_ operation: String, _ message: @autoclosure () -> String, error: any Error) {
        metrics?.storeError(operation)
        let now = ContinuousClock.now
        let unlogged = state.withLockedValue { state -> Int? in
            if let last = state.lastLogged, now - last < interval {
                state.unlogged += 1
                return nil
            }
            defer { state.unlogged = 0 }
            state.lastLogged = now
            return state.unlogged
        }
        guard let unlogged else { return }
        let more = unlogged > 0 ? " (and \(unlogged) more store failures in the last \(interval))" : ""
        logger.error("\(message()): \(error)\(more)")
    }
}
