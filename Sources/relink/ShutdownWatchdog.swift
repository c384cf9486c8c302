import Dispatch
import Foundation
import Logging
import RelinkServer
import ServiceLifecycle

/// Listed after the application in `relink serve`'s service group, so that a stop signal reaches it first: it starts
/// the deadline's clock (`--shutdown-timeout`). At the deadline the group cancels what is still running, and the
/// writers' last flushes get a grace to finish; should the stop overrun even that (something that ignores
/// cancellation), the watchdog ends the process itself, after logging the stop's line.
struct ShutdownWatchdog: Service {
    let deadline: ShutdownDeadline
    let backlog: StoreBacklog
    let logger: Logger

    /// How far past the deadline the process may run: the last flushes' grace and a little more.
    static let overrun = ShutdownDeadline.lastFlushGrace + .milliseconds(500)

    func run() async throws {
        try? await gracefulShutdown()
        let began = ContinuousClock.now
        let end = deadline.begin(at: began) + Self.overrun
        let wait = (end - began).components
        let nanoseconds = Int(wait.seconds) * 1_000_000_000 + Int(wait.attoseconds / 1_000_000_000)
        // A dispatch timer, not a task: it must fire even if every thread of the task pool is held up.
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [deadline, backlog, logger] in
            logger.error(
                "\(backlog.stopMessage(after: .now - began, deadline: deadline.timeout)); the stop overran its deadline, so the process ends here")
            fflush(nil)
            _exit(1)
        }
    }
}
