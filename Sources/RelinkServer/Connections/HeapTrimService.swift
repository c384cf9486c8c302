import Logging
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// Looks at the connection count every `interval` and, when `HeapTrimPolicy` says so, gives the free heap back to
/// the system with glibc's `malloc_trim`. The trim walks every arena's free chunks under its lock, so it runs on the
/// background executor, not on an event loop.
struct HeapTrimService: Service {
    let limit: ConnectionLimit
    let interval: Duration
    let logger: Logger
    /// Gives free heap back; nil where the C library has no such call (not glibc).
    let trim: (@Sendable () -> Void)?

    init(limit: ConnectionLimit, interval: Duration = .seconds(30), logger: Logger, trim: (@Sendable () -> Void)? = Self.mallocTrim) {
        self.limit = limit
        self.interval = interval
        self.logger = logger
        self.trim = trim
    }

    func run() async throws {
        guard let trim else { return }
        var policy = HeapTrimPolicy()
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                let (peak, open) = limit.takePeak()
                guard case .trim(let highest) = policy.look(peak: peak, open: open) else { continue }
                trim()
                logger.debug("gave the free heap back after the open connections fell from \(highest) to \(open)")
            }
        }
    }

    /// glibc's `malloc_trim(0)`, looked up at run time: it is declared in <malloc.h>, which Swift's Glibc module
    /// leaves out.
    static let mallocTrim: (@Sendable () -> Void)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return nil }
        let function = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
        return { _ = function(0) }
        #else
        return nil
        #endif
    }()
}
