import Dispatch

/// Where the services' once-a-second batches are made and let go: a dispatch queue, not the event loops.
/// `relink serve` runs Swift concurrency on SwiftNIO's event loops, so that a request's handler stays on the loop that
/// read it; a batch run there held one loop for it while it made pending clicks into rows and freed them, and freeing
/// memory the other loop had allocated made both loops wait for glibc's arena locks
/// (docs/performance.md#flushes-off-the-event-loops).
/// The recorders' `run()` prefer this executor, and their `flush()` are `@concurrent`, so a flush hops here
/// wherever it is called from.
final class BackgroundExecutor: TaskExecutor {
    static let shared = BackgroundExecutor()

    private let queue = DispatchQueue(label: "relink.background", attributes: .concurrent)

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
