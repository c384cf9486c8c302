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
public final class DeferredClickRecorder: Service, Sendable {
    private struct Buffer {
        var clicks: [PendingClick] = []
        /// Where each buffered click is in `clicks`, so a beacon finds its click in O(1).
        var positions: [String: Int] = [:]
        /// About how much memory `clicks` holds.
        var bytes = 0
        /// Clicks taken by a write that has not ended yet (they come back if it fails).
        var writing = 0
        /// Clicks dropped because the buffer was full, since the start.
        var dropped = 0

        /// A click's weight: its link, and a generous allowance for the rest.
        static func size(_ click: PendingClick) -> Int { click.requestedLink.utf8.count + 512 }

        func hasRoom(for click: PendingClick, capacity: Int, maximumBytes: Int) -> Bool {
            clicks.count + writing < capacity && bytes + Self.size(click) <= maximumBytes
        }

        mutating func append(_ click: PendingClick) {
            positions[click.id] = clicks.count
            clicks.append(click)
            bytes += Self.size(click)
        }

        /// Takes every click, and the index of them, to be released after the lock (freeing a batch's click ids
        /// under it held back the clicks arriving meanwhile).
        mutating func removeAll() -> (clicks: [PendingClick], positions: [String: Int]) {
            let taken = (clicks, positions)
            writing = clicks.count
            clicks = []
            clicks.reserveCapacity(taken.0.count)
            positions = Dictionary(minimumCapacity: taken.1.count)
            bytes = 0
            return taken
        }

        /// Puts back a batch that could not be written, before what arrived since, keeping what fits in `capacity`
        /// clicks and `maximumBytes` (once per failed flush, not per click).
        mutating func putBack(_ batch: [PendingClick], capacity: Int, maximumBytes: Int) {
            writing = 0
            let all = batch + clicks
            clicks.removeAll(keepingCapacity: true)
            bytes = 0
            for click in all {
                if hasRoom(for: click, capacity: capacity, maximumBytes: maximumBytes) {
                    clicks.append(click)
                    bytes += Self.size(click)
                } else {
                    dropped += 1
                }
            }
            positions = Dictionary(clicks.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    private let buffer = NIOLockedValueBox(Buffer())
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
    private let outages: StoreOutageLog?

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
        capacity: Int = 100_000, maximumBytes: Int = 64 << 20, logger: Logger, metrics: RelinkMetrics?, outages: StoreOutageLog?
    ) {
        self.capacity = max(1, capacity)
        self.maximumBytes = max(1, maximumBytes)
        self.store = store
        self.configuration = configuration
        self.interval = interval
        self.purgeInterval = purgeInterval
        self.logger = logger
        self.metrics = metrics
        self.outages = outages
    }

    /// Buffers a click; with `capacity` clicks already waiting it is dropped (and counted) instead: O(1) either way.
    public func record(_ click: PendingClick) {
        let kept = buffer.withLockedValue { buffer in
            guard buffer.hasRoom(for: click, capacity: capacity, maximumBytes: maximumBytes) else {
                buffer.dropped += 1
                return false
            }
            buffer.append(click)
            return true
        }
        if !kept { metrics?.queueDropped(.pendingClicks) }
    }

    /// Clicks waiting now (buffered, or in a write not yet ended), and dropped since the start because the buffer was
    /// full.
    var depth: (buffered: Int, dropped: Int) { buffer.withLockedValue { ($0.clicks.count + $0.writing, $0.dropped) } }

    /// What the preview page measured; false when the click is unknown here and in the store.
    public func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
        let merged = buffer.withLockedValue { buffer -> Bool in
            guard let index = buffer.positions[clickId] else { return false }
            if let screen { buffer.clicks[index].fingerprint.screen = screen }
            if let timeZone { buffer.clicks[index].fingerprint.timeZone = timeZone }
            if !languages.isEmpty { buffer.clicks[index].fingerprint.languages = languages }
            return true
        }
        if merged { return true }
        return try await store.addBrowserSignals(clickId: clickId, screen: screen, timeZone: timeZone, languages: languages)
    }

    /// Writes what is buffered now.
    @concurrent public func flush() async {
        let clicks = buffer.withLockedValue { $0.removeAll() }.clicks
        guard !clicks.isEmpty else { return }
        let start = ContinuousClock.now
        do {
            try await store.insertPendingClicks(clicks)
            buffer.withLockedValue { $0.writing = 0 }
            metrics?.flushed(.pendingClicks, duration: .now - start, failed: false)
        } catch {
            metrics?.flushed(.pendingClicks, duration: .now - start, failed: true)
            let dropped = buffer.withLockedValue { buffer in
                let before = buffer.dropped
                buffer.putBack(clicks, capacity: capacity, maximumBytes: maximumBytes)
                return buffer.dropped - before
            }
            metrics?.queueDropped(.pendingClicks, count: dropped)
            let message =
                "could not write \(clicks.count) pending clicks, will retry\(dropped > 0 ? "; dropped \(dropped) over the buffer's \(capacity)" : "")"
            if let outages { outages.report("flush", message, error: error) } else { logger.error("\(message): \(error)") }
        }
    }

    func purge(now: Date = Date()) async {
        for project in configuration.projects {
            let window = TimeInterval(project.deferred.tokenWindowHours) * 3600
            do {
                let removed = try await store.purgeDeferredData(
                    projectId: project.id, clicksBefore: now.addingTimeInterval(-window),
                    claimsBefore: now.addingTimeInterval(-Self.claimRetention))
                if removed > 0 { logger.info("purged \(removed) expired pending clicks and claims of \(project.id)") }
            } catch {
                logger.error("could not purge the pending clicks of \(project.id): \(error)")
            }
        }
    }

    public func run() async throws {
        // Off the event loops (`BackgroundExecutor`): the flushes and what they free.
        await withTaskExecutorPreference(BackgroundExecutor.shared) {
            let clock = ContinuousClock()
            var lastPurge = clock.now
            await purge()
            while !Task.isShuttingDownGracefully && !Task.isCancelled {
                try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                await flush()
                if clock.now - lastPurge >= purgeInterval {
                    await purge()
                    lastPurge = clock.now
                }
            }
            await flush()
        }
    }
}
