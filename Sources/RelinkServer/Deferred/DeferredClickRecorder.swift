import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Clicks that may lead to an install, on their way to the store. As with click events, a redirect only appends
/// to memory; a service writes the batch every `interval` and on graceful shutdown. It also purges what has
/// aged out: clicks after their project's token window, answered claims after `claimRetention`.
///
/// The buffer holds at most `capacity` clicks and `maximumBytes` of them (a click on a long route path or long link
/// carries it): while the store cannot take them (locked, unreachable) further clicks are dropped and counted, so
/// an outage costs deferred links, never memory or the redirect's time.
///
/// Each project holds at most `deferred.maxPendingClicks` in the store (`PendingClickQuota`): every network has its own
/// budget, and many networks together must not fill the disk. Past the cap a click redirects without being kept.
public final class DeferredClickRecorder: Service, Sendable {
    private let writer: BufferedWriter<PendingClickBuffer>
    private let quota: NIOLockedValueBox<PendingClickQuota>
    private let store: any DeferredLinkRepository
    private let configuration: RelinkConfiguration
    private let interval: Duration
    private let purgeInterval: Duration
    /// The most clicks held in memory, and about the most bytes.
    let capacity: Int
    let maximumBytes: Int
    static let claimRetention: TimeInterval = 30 * 86_400
    private let logger: Logger
    private let metrics: RelinkMetrics?
    /// How long the last flush of a stop may wait for the store.
    private let deadline: ShutdownDeadline
    /// How soon a failed count at start is tried again: until it succeeds, clicks are kept as if the project held none.
    let countRetry: Duration

    public convenience init(
        store: any DeferredLinkRepository, configuration: RelinkConfiguration, interval: Duration = .seconds(1),
        purgeInterval: Duration = .seconds(600), capacity: Int = 100_000, maximumBytes: Int = 64 << 20, logger: Logger
    ) {
        self.init(
            store: store, configuration: configuration, interval: interval, purgeInterval: purgeInterval, capacity: capacity,
            maximumBytes: maximumBytes, logger: logger, metrics: nil, outages: nil)
    }

    init(
        store: any DeferredLinkRepository, configuration: RelinkConfiguration, interval: Duration, purgeInterval: Duration = .seconds(600),
        capacity: Int = 100_000, maximumBytes: Int = 64 << 20, logger: Logger, metrics: RelinkMetrics?, outages: StoreOutageLog?,
        deadline: ShutdownDeadline = ShutdownDeadline(), countRetry: Duration = .seconds(10)
    ) {
        self.countRetry = countRetry
        let capacity = max(1, capacity)
        self.capacity = capacity
        self.maximumBytes = max(1, maximumBytes)
        self.store = store
        self.configuration = configuration
        self.interval = interval
        self.purgeInterval = purgeInterval
        self.logger = logger
        self.metrics = metrics
        self.deadline = deadline
        // Each project's series from the start at 0: an alert on its increase also sees the first clicks refused.
        metrics?.exposePendingClicksOverCap(projectIds: configuration.projects.map(\.id))
        quota = NIOLockedValueBox(
            PendingClickQuota(caps: Dictionary(configuration.projects.map { ($0.id, $0.deferred.maxPendingClicks) }, uniquingKeysWith: { $1 })))
        writer = BufferedWriter(
            buffer: { PendingClickBuffer(capacity: capacity, maximumBytes: maximumBytes) }, queue: .pendingClicks, metrics: metrics,
            outages: outages, logger: logger,
            failureMessage: { count, dropped in
                "could not write \(count) pending clicks, will retry\(dropped > 0 ? "; dropped \(dropped) over the buffer's \(capacity)" : "")"
            },
            write: { batches in try await store.insertPendingClicks(batches[0].clicks) })
    }

    /// Buffers a click; with `capacity` clicks already waiting it is dropped (and counted) instead, and past its
    /// project's cap it is not kept (and counted): O(1) either way.
    public func record(_ click: PendingClick) {
        let decision = quota.withLockedValue { $0.admit(projectId: click.projectId) }
        if case .refuse(let first) = decision {
            metrics?.pendingClickOverCap(projectId: click.projectId)
            if first {
                let cap = quota.withLockedValue { $0.cap(of: click.projectId) } ?? 0
                logger.warning(
                    "project \(click.projectId) holds its cap of \(cap) pending clicks (deferred.maxPendingClicks): new clicks are not kept for deferred links until older ones age out"
                )
            }
            return
        }
        if writer.withBuffer({ $0.record(click) }) == .dropped {
            quota.withLockedValue { $0.release(projectId: click.projectId) }
            metrics?.queueDropped(.pendingClicks)
        }
    }

    /// Counts each project's pending clicks (in the store, up to its cap, and in memory) for the quota: at start and
    /// after each purge. Returns the projects whose count failed.
    @discardableResult
    func countHeldClicks(_ projects: [Project]? = nil) async -> [Project] {
        var failed: [Project] = []
        for project in projects ?? configuration.projects {
            let projectId = project.id
            quota.withLockedValue { $0.beginCount(projectId: projectId) }
            // The clicks not written yet (the last second's, or an outage's): else a count in an outage would grant the
            // cap again on top of them.
            let waiting = writer.withBuffer { $0.waiting(projectId: projectId) }
            do {
                let stored = try await store.pendingClickCount(projectId: projectId, limit: project.deferred.maxPendingClicks)
                let (held, refused) = quota.withLockedValue { $0.finishCount(projectId: projectId, stored: stored, waiting: waiting) }
                if refused > 0 {
                    logger.warning(
                        "\(refused) clicks of project \(projectId) were not kept for deferred links over its cap of \(project.deferred.maxPendingClicks) pending clicks; it holds \(held) now"
                    )
                }
            } catch  where Task.isCancelled || error is CancellationError {
                quota.withLockedValue { $0.abandonCount(projectId: projectId) }
                return failed  // A stop: the next start counts again.
            } catch {
                quota.withLockedValue { $0.abandonCount(projectId: projectId) }
                logger.error("could not count the pending clicks of \(projectId): \(error)")
                failed.append(project)
            }
        }
        return failed
    }

    /// The first counts, tried again every `countRetry` until each has succeeded.
    func countAtStart() async {
        var uncounted = await countHeldClicks()
        while !uncounted.isEmpty, !Task.isCancelled {
            do { try await Task.sleep(for: countRetry) } catch { return }
            uncounted = await countHeldClicks(uncounted)
        }
    }

    /// Clicks waiting now (buffered, or in a write not yet ended), and dropped since the start because the buffer was
    /// full.
    var depth: (buffered: Int, dropped: Int) { writer.withBuffer { ($0.clicks.count + $0.writing, $0.dropped) } }

    /// What the preview page measured; false when the click is unknown here and in the store.
    public func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
        let merged = writer.withBuffer { $0.addBrowserSignals(clickId: clickId, screen: screen, timeZone: timeZone, languages: languages) }
        if merged { return true }
        return try await store.addBrowserSignals(clickId: clickId, screen: screen, timeZone: timeZone, languages: languages)
    }

    /// Writes what is buffered now; with a write running (the periodic one, a claim's), waits for it and then writes
    /// what is left, so that every click recorded before the call is in the store when it returns; false when the store
    /// failed (and lacks some of them).
    @discardableResult
    @concurrent public func flush() async -> Bool {
        await writer.flush()
    }

    /// Rows deleted per write and table: a purge of millions (a flood's clicks ageing out) takes the writer in short
    /// turns (a pending click has five index entries: 5,000 of them held it up to 1.5 s), with a pause between
    /// them so that the writes queued meanwhile go first.
    static let purgeBatch = 1_000
    static let purgePause = Duration.milliseconds(20)

    /// Deletes what aged out, per project: also of projects no longer in routes.json, with the default windows, so
    /// their clicks' address hashes and device data are not kept for ever (docs/privacy.md).
    func purge(now: Date = Date()) async {
        var windows = Dictionary(uniqueKeysWithValues: configuration.projects.map { ($0.id, $0.deferred.tokenWindowHours) })
        do {
            for removed in try await store.projectsWithDeferredData() where windows[removed] == nil {
                windows[removed] = DeferredLinkSettings.default.tokenWindowHours
            }
        } catch {
            logger.error("could not list the projects with pending clicks: \(error)")
        }
        for (projectId, hours) in windows.sorted(by: { $0.key < $1.key }) {
            var removed = 0
            do {
                while !Task.isCancelled {
                    let batch = try await store.purgeDeferredData(
                        projectId: projectId, clicksBefore: now.addingTimeInterval(-TimeInterval(hours) * 3600),
                        claimsBefore: now.addingTimeInterval(-Self.claimRetention), limit: Self.purgeBatch)
                    removed += batch
                    if batch == 0 { break }
                    try await Task.sleep(for: Self.purgePause)
                }
            } catch  where Task.isCancelled || error is CancellationError {
                // A stop in the middle: the rest waits for the next start.
            } catch {
                logger.error("could not purge the pending clicks of \(projectId): \(error)")
            }
            if removed > 0 { logger.info("purged \(removed) expired pending clicks, kept links and claims of \(projectId)") }
        }
    }

    public func run() async throws {
        // Off the event loops (`BackgroundExecutor`): the flushes and what they free.
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            await withDiscardingTaskGroup { group in
                // Beside the flushes, not between them: a purge of a flood's clicks takes minutes, and the clicks
                // kept meanwhile must still reach the store each second. A stop ends it at its next batch.
                group.addTask {
                    // Counted before the first purge as well, which can take minutes after a flood.
                    await cancelWhenGracefulShutdown { await self.countAtStart() }
                    while !Task.isShuttingDownGracefully && !Task.isCancelled {
                        await cancelWhenGracefulShutdown {
                            await self.purge()
                            if !Task.isCancelled { await self.countHeldClicks() }
                        }
                        try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.purgeInterval) }
                    }
                }
                while !Task.isShuttingDownGracefully && !Task.isCancelled {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                    await flush()
                }
                await deadline.lastFlush { await self.flush() }
            }
        }
    }
}
