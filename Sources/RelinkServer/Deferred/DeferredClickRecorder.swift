import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Clicks that may lead to an install, on their way to the store. As with click events, a redirect only appends
/// to memory; a service writes the batch every `interval` and on graceful shutdown. It also purges what has
/// aged out: clicks after their project's token window, answered claims after `claimRetention`.
public final class DeferredClickRecorder: Service, Sendable {
    private struct Buffer {
        var clicks: [PendingClick] = []
    }

    private let buffer = NIOLockedValueBox(Buffer())
    private let store: any DeferredLinkRepository
    private let configuration: RelinkConfiguration
    private let interval: Duration
    private let purgeInterval: Duration
    static let claimRetention: TimeInterval = 30 * 86_400
    private let logger: Logger

    public init(
        store: any DeferredLinkRepository, configuration: RelinkConfiguration, interval: Duration = .seconds(1),
        purgeInterval: Duration = .seconds(600), logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.interval = interval
        self.purgeInterval = purgeInterval
        self.logger = logger
    }

    public func record(_ click: PendingClick) {
        buffer.withLockedValue { $0.clicks.append(click) }
    }

    /// What the preview page measured; false when the click is unknown here and in the store.
    public func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
        let merged = buffer.withLockedValue { buffer -> Bool in
            guard let index = buffer.clicks.firstIndex(where: { $0.id == clickId }) else { return false }
            if let screen { buffer.clicks[index].fingerprint.screen = screen }
            if let timeZone { buffer.clicks[index].fingerprint.timeZone = timeZone }
            if !languages.isEmpty { buffer.clicks[index].fingerprint.languages = languages }
            return true
        }
        if merged { return true }
        return try await store.addBrowserSignals(clickId: clickId, screen: screen, timeZone: timeZone, languages: languages)
    }

    /// Writes what is buffered now.
    public func flush() async {
        let clicks = buffer.withLockedValue { buffer in
            defer { buffer.clicks.removeAll(keepingCapacity: true) }
            return buffer.clicks
        }
        guard !clicks.isEmpty else { return }
        do {
            try await store.insertPendingClicks(clicks)
        } catch {
            buffer.withLockedValue { $0.clicks.insert(contentsOf: clicks, at: 0) }
            logger.error("could not write \(clicks.count) pending clicks, will retry: \(error)")
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
