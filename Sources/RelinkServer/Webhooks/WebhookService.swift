import Atomics
import Crypto
import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Outgoing events. Every event for a subscribed webhook is first written to the store's outbox (link and install
/// events in the transaction that saves the link or the claim, re-opens at once, clicks in batches every second as
/// click counts are), then delivered by whichever instance leases it: POSTed with `Relink-Signature: t=<unix time>,v1=<hex
/// HMAC-SHA256 of "<t>.<body>">` and `Relink-Delivery: <id>`, retried with backoff for a day, given up after.
/// Targets are checked as any server-side fetch (no private addresses unless the operator allows them). The outbox
/// is bounded: at most `maximumPending` deliveries wait per webhook (past it new events are dropped and
/// counted), and finished deliveries are deleted `finishedRetention` after their last attempt.
final class WebhookService: Service, Sendable {
    /// Webhooks per project, at most.
    static let maximumPerProject = 20
    /// Clicks waiting for the next outbox write, at most; past it click events are dropped and counted.
    static let clickBufferCapacity = 10_000
    /// Deliveries in flight at once; each round leases what frees up, so a slow receiver holds one slot, not a round.
    static let concurrency = 8
    /// Click events a webhook takes per interval; past it they are dropped and counted (a flood of clicks on one
    /// project's links must not bury its other events, nor other projects').
    static let clicksPerWebhookPerInterval = 1000
    /// Deliveries waiting per webhook, at most, by default: a receiver that is down (or slow) must not grow the
    /// outbox without bound. Past it a new event of that webhook is dropped and counted; the backlog drains as it is
    /// delivered or given up.
    static let maximumPendingPerWebhook = 100_000
    /// How long a delivered or given-up delivery stays in the outbox after its last attempt, for `deliveries` to show.
    static let finishedRetention: TimeInterval = 7 * 86_400
    /// Finished deliveries deleted per write: each batch is a short write of its own, so clicks and sends are not held up.
    static let purgeBatch = 5_000
    /// How often the finished deliveries past their retention are deleted.
    static let purgeInterval: Duration = .seconds(600)
    /// How long a leased delivery is this instance's before another may take it (a crashed sender's).
    let lease: Duration
    /// The first retry's delay; each next one doubles, up to an hour.
    let retryBase: TimeInterval
    /// Deliveries waiting per webhook, at most (`maximumPendingPerWebhook` unless a test says otherwise).
    let maximumPending: Int
    /// Retries stop this long after the event.
    static let retryWindow: TimeInterval = 86_400

    let store: any RelinkStore
    let fetcher: SafeFetcher
    let interval: Duration
    let logger: Logger
    /// Each project's webhooks, reread every `interval` × 30 and whenever this instance changes them.
    private let subscriptions = NIOLockedValueBox<(byProject: [String: [WebhookRecord]], loaded: ContinuousClock.Instant?)>(([:], nil))
    private let clicks: BufferedWriter<WebhookClickBuffer>
    private let inFlight = NIOLockedValueBox(0)
    /// When each webhook's last failed delivery was logged, and how many failed since.
    private let failureLog = ThrottledLog<Int64>()
    /// Where the store's failures are counted and logged, once per 10 seconds in an outage (else each is logged).
    private let outages: StoreOutageLog?
    /// Whether any project has a webhook: a click on a server without any takes no lock.
    private let anySubscription = ManagedAtomic(false)
    /// Events dropped because their webhook had `maximumPending` deliveries waiting, since last logged.
    private let overPending: ManagedAtomic<Int>
    /// Whether a purge of finished deliveries is running (a slow one is not started again beside itself).
    private let purging = ManagedAtomic(false)
    /// Whether a webhook was removed since the last purge began: the next round purges, whatever the purge's clock.
    private let removalPending = ManagedAtomic(false)

    init(
        store: any RelinkStore, fetcher: SafeFetcher, interval: Duration = .seconds(1), lease: Duration = .seconds(60),
        retryBase: Duration = .seconds(30), maximumPending: Int = WebhookService.maximumPendingPerWebhook, logger: Logger,
        outages: StoreOutageLog? = nil
    ) {
        self.outages = outages
        self.lease = lease
        self.maximumPending = maximumPending
        let (seconds, attoseconds) = retryBase.components
        self.retryBase = Double(seconds) + Double(attoseconds) / 1e18
        self.store = store
        self.fetcher = fetcher
        self.interval = interval
        self.logger = logger
        let overPending = ManagedAtomic(0)
        self.overPending = overPending
        clicks = BufferedWriter(
            buffer: { WebhookClickBuffer(capacity: Self.clickBufferCapacity, perWebhook: Self.clicksPerWebhookPerInterval) }, queue: nil,
            metrics: nil, outages: outages, logger: logger,
            failureMessage: { count, _ in "\(count) click webhook events dropped: the outbox could not be written" },
            write: { batches in
                let dropped = try await store.enqueueDeliveries(batches[0], maximumPending: maximumPending)
                overPending.wrappingIncrement(by: dropped, ordering: .relaxed)
            })
    }

    // MARK: Events

    /// Writes `event` for every webhook of `projectId` that takes it to the outbox, before returning.
    func emit(_ event: WebhookEvent, projectId: String, data: some Encodable & Sendable) async {
        let deliveries = deliveries(event, projectId: projectId, data: data)
        guard !deliveries.isEmpty else { return }
        do {
            let dropped = try await store.enqueueDeliveries(deliveries, maximumPending: maximumPending)
            overPending.wrappingIncrement(by: dropped, ordering: .relaxed)
        } catch {
            logger.error("webhook event \(event.rawValue) of project \(projectId) not written to the outbox: \(error)")
        }
    }

    /// `events` for a write (a link's insert or change, an install's claim), for the store to write in that write's
    /// own transaction: saved exactly when what they tell of is. Nil when no webhook of `projectId` takes any of them,
    /// so the write stays as short as without webhooks.
    func deliveries<Saved: Sendable, Data: Encodable & Sendable>(
        of events: [WebhookEvent], projectId: String, data: @escaping @Sendable (Saved) -> Data
    ) -> EventDeliveries<Saved>? {
        guard anySubscription.load(ordering: .relaxed),
            subscriptions.withLockedValue({ $0.byProject[projectId] ?? [] }).contains(where: { webhook in
                events.contains { webhook.events.contains($0.rawValue) }
            })
        else { return nil }
        let overPending = self.overPending
        return EventDeliveries(
            maximumPending: maximumPending, leftOut: { overPending.wrappingIncrement(by: $0, ordering: .relaxed) },
            make: { [self] saved in
                let data = data(saved)
                return events.flatMap { deliveries($0, projectId: projectId, data: data) }
            })
    }

    /// `emit` for clicks: kept in memory and written with the next batch (within `interval`), so a click never
    /// waits for the store.
    func emitClick(projectId: String, data: some Encodable & Sendable) {
        let deliveries = deliveries(.click, projectId: projectId, data: data)
        guard !deliveries.isEmpty else { return }
        clicks.withBuffer { buffer in
            for delivery in deliveries { _ = buffer.record(delivery) }
        }
    }

    /// One delivery per webhook of the project subscribed to `event`.
    func deliveries(_ event: WebhookEvent, projectId: String, data: some Encodable & Sendable) -> [WebhookDelivery] {
        guard anySubscription.load(ordering: .relaxed) else { return [] }
        let targets = subscriptions.withLockedValue { $0.byProject[projectId] ?? [] }.filter { $0.events.contains(event.rawValue) }
        guard !targets.isEmpty else { return [] }
        let now = Date()
        return targets.compactMap { webhook in
            let id = DeferredLinkService.newClickID()
            guard let payload = Self.payload(id: id, event: event, projectId: projectId, at: now, data: data) else { return nil }
            return WebhookDelivery(id: id, webhookId: webhook.id, event: event.rawValue, payload: payload, createdAt: now, nextAttemptAt: now)
        }
    }

    struct Envelope<Data: Encodable>: Encodable {
        var id: String
        var type: String
        var createTime: String
        var project: String
        var data: Data
    }

    static func payload(id: String, event: WebhookEvent, projectId: String, at date: Date, data: some Encodable) -> String? {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let envelope = Envelope(id: id, type: event.rawValue, createTime: APITime.format(date), project: projectId, data: data)
        return (try? encoder.encode(envelope)).map { String(decoding: $0, as: UTF8.self) }
    }

    // MARK: Subscriptions

    func reloadSubscriptions() async {
        do {
            let all = try await store.webhooks(projectId: nil)
            subscriptions.withLockedValue { $0 = (Dictionary(grouping: all, by: \.projectId), .now) }
            anySubscription.store(!all.isEmpty, ordering: .relaxed)
        } catch {
            reportStoreFailure("webhooks could not be read", error: error)
        }
    }

    // MARK: Delivery

    /// `Relink-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the webhook's secret>`.
    static func signature(secret: String, timestamp: Int, body: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(timestamp).\(body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return "t=\(timestamp),v1=\(Hex.string(mac))"
    }

    /// When to try again after `attempts` failed attempts (30 s, 1 min, 2 min, … up to an hour), or nil past the
    /// day of retries.
    static func retryTime(after attempts: Int, createdAt: Date, now: Date, base: TimeInterval = 30) -> Date? {
        let delay = min(base * pow(2, Double(max(0, attempts - 1))), 3600)
        let next = now + delay
        return next.timeIntervalSince(createdAt) <= retryWindow ? next : nil
    }

    /// - Returns: whether the receiver took it.
    @discardableResult
    func deliver(_ delivery: WebhookDelivery, to webhook: WebhookRecord) async -> Bool {
        let now = Date()
        let timestamp = Int(now.timeIntervalSince1970)
        let headers = [
            ("Relink-Signature", Self.signature(secret: webhook.secret, timestamp: timestamp, body: delivery.payload)),
            ("Relink-Delivery", delivery.id), ("Relink-Event", delivery.event),
        ]
        var status: UInt?
        var failure: String?
        do {
            status = try await fetcher.post(webhook.url, body: Array(delivery.payload.utf8), headers: headers)
            if let code = status, !(200..<300).contains(code) {
                failure = (300..<400).contains(code) ? "HTTP \(code): redirects are not followed" : "HTTP \(code)"
            }
        } catch {
            failure = error.description
        }
        let delivered = failure == nil
        let retryAt = delivered ? nil : Self.retryTime(after: delivery.attempts + 1, createdAt: delivery.createdAt, now: Date(), base: retryBase)
        if !delivered, let unlogged = failureLog.shouldLog(webhook.id) {
            // A line per webhook per 10 seconds: a receiver failing at once must not write one per delivery.
            let more = unlogged > 0 ? " (and \(unlogged) more failed deliveries of this webhook in the last 10 s)" : ""
            logger.info(
                "webhook \(webhook.id) delivery \(delivery.id) failed (attempt \(delivery.attempts + 1)): \(failure ?? "")\(retryAt == nil ? "; given up" : "")\(more)"
            )
        }
        do {
            try await store.recordAttempt(
                deliveryId: delivery.id, delivered: delivered, status: status.map { Int($0) }, error: failure, retryAt: retryAt, at: Date())
        } catch {
            // The lease runs out and the delivery goes again: a receiver may see it twice (Relink-Delivery says so).
            reportStoreFailure("webhook delivery \(delivery.id) could not be recorded", error: error)
        }
        return delivered
    }

    /// The clicks of the last interval to the outbox (after a write that is running, if any).
    func writeClicks() async {
        let dropped = clicks.withBuffer { $0.takeDropped() }
        if dropped > 0 {
            logger.warning(
                "\(dropped) click webhook events dropped: over \(Self.clicksPerWebhookPerInterval) per webhook or \(Self.clickBufferCapacity) in all in one interval"
            )
        }
        await clicks.flush()
        logDroppedOverPending()
    }

    /// Says once a round how many events were dropped for their webhook's backlog (one line, however many).
    private func logDroppedOverPending() {
        let dropped = overPending.exchange(0, ordering: .relaxed)
        guard dropped > 0 else { return }
        logger.warning(
            "\(dropped) webhook events dropped: their webhook already had \(maximumPending) deliveries waiting (its receiver is down or slow)"
        )
    }

    /// Counts an event dropped for its webhook's backlog elsewhere (a test event refused), for the next round's line.
    func countDroppedOverPending(_ count: Int) {
        overPending.wrappingIncrement(by: count, ordering: .relaxed)
    }

    // MARK: Retention

    /// Deletes the finished deliveries past `finishedRetention`, a batch at a time, until none is left or the
    /// service stops.
    /// - Returns: how many were deleted.
    @discardableResult
    func purgeFinishedDeliveries(now: Date = Date()) async -> Int {
        let before = now - Self.finishedRetention
        let (removed, _) = await inBatches("finished webhook deliveries") { [store] limit in
            try await store.purgeFinishedDeliveries(before: before, limit: limit)
        }
        if removed > 0 { logger.info("\(removed) finished webhook deliveries past their \(Int(Self.finishedRetention / 86_400)) days deleted") }
        return removed
    }

    /// Deletes the deliveries of removed webhooks, and then their rows, a batch at a time, until none is left or the
    /// service stops (the next start finishes). One that fails is tried again at the sender's next round that can.
    /// - Returns: how many deliveries were deleted.
    @discardableResult
    func purgeDeletedWebhooks() async -> Int {
        let (removed, failed) = await inBatches("the deliveries of removed webhooks") { [store] limit in
            try await store.purgeDeletedWebhooks(limit: limit)
        }
        if failed { removalPending.store(true, ordering: .relaxed) }
        if removed > 0 { logger.info("\(removed) deliveries of removed webhooks deleted") }
        return removed
    }

    /// Runs `purge` (which deletes up to its limit of `rows`) until it deletes fewer, fails (reported as the store's
    /// failures are: a line per 10 s in an outage) or the service stops.
    /// - Returns: how many it deleted, and whether it failed.
    private func inBatches(_ rows: String, _ purge: (Int) async throws -> Int) async -> (removed: Int, failed: Bool) {
        var removed = 0
        do {
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                let count = try await purge(Self.purgeBatch)
                removed += count
                if count < Self.purgeBatch { break }
            }
        } catch {
            if Task.isCancelled || Task.isShuttingDownGracefully { return (removed, false) }
            reportStoreFailure("\(rows) could not be deleted", error: error)
            return (removed, true)
        }
        return (removed, false)
    }

    /// Asks the sender's loop to delete a removed webhook's deliveries now rather than at the next purge.
    func purgeSoon() {
        removalPending.store(true, ordering: .relaxed)
    }

    /// Leases as many due deliveries as there are free slots and starts sending them in `group`; each one the
    /// receiver takes yields to `finished`, so that its slot is leased again at once.
    /// - Returns: how many it started.
    @discardableResult
    func startDue(in group: inout DiscardingTaskGroup, finished: AsyncStream<Void>.Continuation? = nil) async -> Int {
        let free = Self.concurrency - inFlight.withLockedValue { $0 }
        guard free > 0 else { return 0 }
        let leased: [(WebhookDelivery, WebhookRecord)]
        do {
            leased = try await store.leaseDeliveries(now: Date(), limit: free, lease: lease)
        } catch {
            // Cut by a stop's deadline: nothing was leased, and the stop's own line says what it left.
            if !Task.isCancelled { reportStoreFailure("webhook deliveries could not be leased", error: error) }
            return 0
        }
        for (delivery, webhook) in leased {
            inFlight.withLockedValue { $0 += 1 }
            group.addTask {
                let delivered = await self.deliver(delivery, to: webhook)
                self.inFlight.withLockedValue { $0 -= 1 }
                // Only a delivery that went through: a receiver that is down would otherwise be tried as fast as it
                // fails; its backlog goes out a round at a time, each delivery then on its own retry schedule.
                if delivered { finished?.yield() }
            }
        }
        return leased.count
    }

    /// A store failure of the sender's: through the outage log when there is one, so an outage is a line per 10
    /// seconds (with its count), not one per lease.
    private func reportStoreFailure(_ message: String, error: any Error) {
        if let outages { outages.report("webhooks", message, error: error) } else { logger.warning("\(message): \(error)") }
    }

    /// One round, awaited: the clicks to the outbox, then what is due (for tests).
    func deliverDue() async {
        await writeClicks()
        _ = await withDiscardingTaskGroup { group in await startDue(in: &group) }
    }

    func run() async throws {
        await reloadSubscriptions()
        // What wakes the sender: the rounds' clock, and every delivery that ends (its slot is leased again at once,
        // so a webhook's two at a time follow each other as fast as its receiver answers, and a slow receiver costs
        // a lease only when it answers). Coalesced: a wake that finds nothing to do costs one lease.
        let (wakes, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        await withDiscardingTaskGroup { group in
            group.addTask {
                wake.yield()
                while !Task.isCancelled, !Task.isShuttingDownGracefully {
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
                    wake.yield()
                }
                wake.finish()
            }
            var rounds = 0
            var nextPurge = ContinuousClock.now
            var nextRound = ContinuousClock.now
            for await _ in wakes {
                // Shutting down: no new sends (they could outlast it); what is due goes from the next start or another
                // instance. Sends in flight finish (the group waits for them).
                if Task.isShuttingDownGracefully || Task.isCancelled { break }
                guard ContinuousClock.now >= nextRound else {
                    await startDue(in: &group, finished: wake)
                    continue
                }
                nextRound = .now + interval
                rounds += 1
                // Other instances' changes to webhooks arrive within 30 intervals.
                if rounds % 30 == 0 { await reloadSubscriptions() }
                await writeClicks()
                await startDue(in: &group, finished: wake)
                // Beside the sends, not before them: a large backlog of old rows takes many writes.
                let due = ContinuousClock.now >= nextPurge
                if due || removalPending.load(ordering: .relaxed),
                    purging.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged
                {
                    removalPending.store(false, ordering: .relaxed)
                    if due { nextPurge = .now + Self.purgeInterval }
                    group.addTask {
                        await self.purgeDeletedWebhooks()
                        if due { await self.purgeFinishedDeliveries() }
                        self.purging.store(false, ordering: .relaxed)
                    }
                }
            }
            wake.finish()
        }
        // The last clicks go to the outbox; what is due goes out from the next start (or another instance).
        await writeClicks()
    }
}
