import Foundation
import GRDB
import PostgresNIO
import RelinkCore
import Synchronization
import Testing

@testable import RelinkStore

/// The outbox's bounds on both stores: pending deliveries are capped per webhook, and finished ones are deleted
/// after their retention, a batch at a time.
@Suite("Webhook outbox bounds")
struct WebhookOutboxStoreTests {
    static let start: TimeInterval = 1_700_000_000

    static func delivery(_ id: String, webhook: Int64, at time: TimeInterval = start) -> WebhookDelivery {
        let date = Date(timeIntervalSince1970: time)
        return WebhookDelivery(id: id, webhookId: webhook, event: "click", payload: #"{"id":"\#(id)"}"#, createdAt: date, nextAttemptAt: date)
    }

    /// Events of one delivery each to `webhook`, whose payload `payload` makes from what was saved.
    static func events<Saved: Sendable>(
        to webhook: Int64, _ event: String, maximumPending: Int = 100, leftOut: @escaping @Sendable (Int) -> Void = { _ in },
        payload: @escaping @Sendable (Saved) -> String
    ) -> EventDeliveries<Saved> {
        EventDeliveries(maximumPending: maximumPending, leftOut: leftOut) { saved in
            let now = Date()
            return [
                WebhookDelivery(id: UUID().uuidString, webhookId: webhook, event: event, payload: payload(saved), createdAt: now, nextAttemptAt: now)
            ]
        }
    }

    static func pending(_ webhook: Int64, in store: any RelinkStore) async throws -> Set<String> {
        Set(try await store.deliveries(webhookId: webhook, limit: 1_000).filter { $0.status == .pending }.map(\.id))
    }

    @Test(arguments: StoreKind.available) func pendingDeliveriesAreCappedPerWebhook(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let full = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/a", events: ["click"], secret: "s")
            let other = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/b", events: ["click"], secret: "s")
            #expect(try await store.enqueueDeliveries((0..<3).map { Self.delivery("a\($0)", webhook: full.id) }, maximumPending: 4) == 0)
            // One batch: the cap counts what is already waiting and what this batch writes; the other webhook has
            // its own room.
            let batch = (3..<7).map { Self.delivery("a\($0)", webhook: full.id) } + (0..<2).map { Self.delivery("b\($0)", webhook: other.id) }
            #expect(try await store.enqueueDeliveries(batch, maximumPending: 4) == 3)
            #expect(try await Self.pending(full.id, in: store) == ["a0", "a1", "a2", "a3"])
            #expect(try await Self.pending(other.id, in: store) == ["b0", "b1"])
            #expect(try await store.enqueueDeliveries([Self.delivery("a7", webhook: full.id)], maximumPending: 4) == 1)

            // A finished delivery frees its place.
            let leased = try await store.leaseDeliveries(now: Date(timeIntervalSince1970: Self.start + 1), limit: 10, lease: .seconds(60))
            let sent = try #require(leased.first { $0.1.id == full.id }?.0)
            try await store.recordAttempt(
                deliveryId: sent.id, delivered: true, status: 200, error: nil, retryAt: nil, at: Date(timeIntervalSince1970: Self.start + 2))
            #expect(try await store.enqueueDeliveries([Self.delivery("a8", webhook: full.id)], maximumPending: 4) == 0)
            #expect(try await Self.pending(full.id, in: store).count == 4)
            #expect(try await Self.pending(full.id, in: store).contains("a8"))
        }
    }

    /// No webhook has more than two deliveries in flight, those leased in an earlier lease included: a slow receiver
    /// never holds more of an instance's slots, and a finished delivery frees its webhook's place.
    @Test(arguments: StoreKind.available) func aWebhookHasAtMostTwoDeliveriesInFlight(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let slow = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/slow", events: ["click"], secret: "s")
            let other = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/b", events: ["click"], secret: "s")
            try await store.enqueueDeliveries((0..<6).map { Self.delivery("s\($0)", webhook: slow.id) }, maximumPending: 100)
            func lease(at offset: TimeInterval) async throws -> [String] {
                try await store.leaseDeliveries(now: Date(timeIntervalSince1970: Self.start + offset), limit: 8, lease: .seconds(60)).map(\.0.id)
                    .sorted()
            }
            #expect(try await lease(at: 1) == ["s0", "s1"])
            #expect(try await lease(at: 2) == [])
            try await store.enqueueDeliveries([Self.delivery("b0", webhook: other.id)], maximumPending: 100)
            #expect(try await lease(at: 3) == ["b0"])
            try await store.recordAttempt(
                deliveryId: "s0", delivered: true, status: 200, error: nil, retryAt: nil, at: Date(timeIntervalSince1970: Self.start + 4))
            #expect(try await lease(at: 5) == ["s2"])
            // Leases run out (their instance stopped): those deliveries go out again, two of the slow webhook's.
            #expect(try await lease(at: 70) == ["b0", "s1", "s2"])
        }
    }

    /// The free slots go first to the projects, then to the webhooks, with the fewest deliveries in flight: another
    /// project's newest event goes out in the same lease as the first project's oldest backlog, and a project's
    /// healthy webhook is not held back by its stuck ones.
    @Test(arguments: StoreKind.available) func oneProjectsWebhooksLeaveSlotsToTheOthers(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            var busy: [Int64] = []
            for index in 0..<4 {
                let webhook = try await store.insertWebhook(
                    projectId: "pictlink", url: "https://hooks.example.com/hang\(index)", events: ["click"], secret: "s")
                busy.append(webhook.id)
                try await store.enqueueDeliveries(
                    (0..<5).map { Self.delivery("h\(index)-\($0)", webhook: webhook.id, at: Self.start + Double($0)) }, maximumPending: 100)
            }
            let other = try await store.insertWebhook(projectId: "fieldnotes", url: "https://hooks.example.com/b", events: ["click"], secret: "s")
            try await store.enqueueDeliveries([Self.delivery("b0", webhook: other.id, at: Self.start + 10)], maximumPending: 100)
            let leased = try await store.leaseDeliveries(now: Date(timeIntervalSince1970: Self.start + 20), limit: 8, lease: .seconds(60))
            let ids = Set(leased.map(\.0.id))
            #expect(ids.contains("b0"), "\(ids.sorted())")
            #expect(leased.filter { busy.contains($0.1.id) }.count == 7, "\(ids.sorted())")
            // Round robin: each of the four webhooks got its first before any got its second.
            #expect(ids.isSuperset(of: ["h0-0", "h1-0", "h2-0", "h3-0"]), "\(ids.sorted())")
            // The stuck webhooks hold their two each; a new webhook of the same project goes out before anything more.
            let healthy = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/ok", events: ["click"], secret: "s")
            try await store.enqueueDeliveries([Self.delivery("ok0", webhook: healthy.id, at: Self.start + 15)], maximumPending: 100)
            let again = try await store.leaseDeliveries(now: Date(timeIntervalSince1970: Self.start + 21), limit: 1, lease: .seconds(60))
            #expect(again.map(\.0.id) == ["ok0"], "\(again.map(\.0.id))")
        }
    }

    @Test(arguments: StoreKind.available) func finishedDeliveriesAreDeletedAfterTheirRetentionInBatches(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let webhook = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/a", events: ["click"], secret: "s")
            let old = Self.start
            let recent = Self.start + 10 * 86_400
            let deliveries =
                ["old-delivered-1", "old-delivered-2", "old-delivered-3", "old-failed", "old-pending"].map {
                    Self.delivery($0, webhook: webhook.id, at: old)
                } + ["new-delivered"].map { Self.delivery($0, webhook: webhook.id, at: recent) }
            try await store.enqueueDeliveries(deliveries, maximumPending: 100)
            for delivery in deliveries where delivery.id != "old-pending" {
                let failed = delivery.id == "old-failed"
                try await store.recordAttempt(
                    deliveryId: delivery.id, delivered: !failed, status: failed ? 500 : 200, error: failed ? "HTTP 500" : nil, retryAt: nil,
                    at: delivery.createdAt)
            }
            // A pending delivery whose retry is still to come stays, however old it is.
            try await store.recordAttempt(
                deliveryId: "old-pending", delivered: false, status: 500, error: "HTTP 500", retryAt: Date(timeIntervalSince1970: old + 60),
                at: Date(timeIntervalSince1970: old))

            let before = Date(timeIntervalSince1970: recent - 86_400)
            #expect(try await store.purgeFinishedDeliveries(before: before, limit: 3) == 3)
            #expect(try await store.purgeFinishedDeliveries(before: before, limit: 3) == 1)
            #expect(try await store.purgeFinishedDeliveries(before: before, limit: 3) == 0)
            let left = try await store.deliveries(webhookId: webhook.id, limit: 100)
            #expect(Set(left.map(\.id)) == ["old-pending", "new-delivered"])
        }
    }

    /// A link's events are written in the transaction that saves it: one for each insert and change saved (made from
    /// the link as saved), none for an insert refused or a change thrown or left, and a full webhook's left out and
    /// told after the commit.
    @Test(arguments: StoreKind.available) func linkEventsAreWrittenExactlyWithTheirChange(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let webhook = try await store.insertWebhook(
                projectId: "pictlink", url: "https://hooks.example.com/links", events: ["link.created", "link.updated"], secret: "s")
            let leftOut = Mutex(0)
            let events: EventDeliveries<ShortLinkRecord> = Self.events(
                to: webhook.id, "link.changed", maximumPending: 3, leftOut: { count in leftOut.withLock { $0 += count } }
            ) { link in "\(link.code) \(link.longLink) \(link.updatedAt.timeIntervalSince1970)" }
            func payloads() async throws -> [String] {
                try await store.deliveries(webhookId: webhook.id, limit: 100).map(\.payload).sorted()
            }

            let record = try await store.insertLink(StoreConformanceTests.draft("ev1"), events: events)
            #expect(try await payloads() == ["ev1 \(record.longLink) \(record.updatedAt.timeIntervalSince1970)"])
            // The same code again is refused, and its event with it.
            await #expect(throws: StoreError.self) { try await store.insertLink(StoreConformanceTests.draft("ev1"), events: events) }
            #expect(try await payloads().count == 1)

            struct Refused: Error {}
            await #expect(throws: Refused.self) { try await store.updateLink(id: record.id, events: events) { _ in throw Refused() } }
            _ = try await store.updateLink(id: record.id, events: events) { _ in nil }
            #expect(try await payloads().count == 1)

            let (_, saved) = try await store.updateLink(id: record.id, events: events) { stored in
                var changed = stored
                changed.longLink = "https://go.pictlink.com/?link=https://pictlink.com/b"
                return changed
            }
            let changed = try #require(saved)
            #expect(try await payloads().contains("ev1 \(changed.longLink) \(changed.updatedAt.timeIntervalSince1970)"))
            #expect(try await payloads().count == 2)
            #expect(leftOut.withLock { $0 } == 0)

            // The webhook's cap (3) has room for one more; the fourth is left out, and the link is saved anyway.
            _ = try await store.insertLink(StoreConformanceTests.draft("ev2"), events: events)
            let last = try await store.insertLink(StoreConformanceTests.draft("ev3"), events: events)
            #expect(try await payloads().count == 3)
            #expect(leftOut.withLock { $0 } == 1)
            #expect(try await store.link(domain: last.domain, code: "ev3") != nil)
        }
    }

    /// An install's events are written in its claim's transaction, for the click it took, and only when it took one:
    /// not for an install answered before, a click another install took, or a claim of no click.
    @Test(arguments: StoreKind.available) func claimEventsAreWrittenOnlyWithAClickTaken(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let webhook = try await store.insertWebhook(
                projectId: "pictlink", url: "https://hooks.example.com/installs", events: ["install.claimed"], secret: "s")
            let events: EventDeliveries<String> = Self.events(to: webhook.id, "install.claimed") { clickId in clickId }
            func payloads() async throws -> [String] {
                try await store.deliveries(webhookId: webhook.id, limit: 100).map(\.payload).sorted()
            }
            try await store.insertPendingClicks([StoreConformanceTests.click("c1"), StoreConformanceTests.click("c2")])
            let now = Date()
            func claim(_ click: String?, install: String, confidence: AttributionConfidence = .default) async throws -> ClaimOutcome {
                try await store.claim(
                    clickId: click, confidence: confidence, projectId: "pictlink", installId: install, response: "{}", at: now, events: events)
            }
            #expect(try await claim("c1", install: "i1") == .claimed)
            #expect(try await payloads() == ["c1"])
            #expect(try await claim("c2", install: "i1") != .claimed, "answered before")
            #expect(try await claim("c1", install: "i2") == .clickTaken)
            #expect(try await claim(nil, install: "i3") == .claimed, "no match, kept")
            #expect(try await payloads() == ["c1"])
            #expect(try await claim("c2", install: "i4") == .claimed)
            #expect(try await payloads() == ["c1", "c2"])
            // A click taken back from a weak claim sent its events with that claim.
            try await store.insertPendingClicks([StoreConformanceTests.click("c3")])
            #expect(try await claim("c3", install: "i5", confidence: .weak) == .claimed)
            #expect(try await claim("c3", install: "i6", confidence: .unique) == .takenBack)
            #expect(try await payloads() == ["c1", "c2", "c3"])
        }
    }

    /// A removed webhook is gone at once (not listed, written to, leased, or removed twice) while its deliveries stay
    /// until the purge deletes them, a batch at a time, and then its row.
    @Test(arguments: StoreKind.available) func aRemovedWebhookIsGoneAtOnceAndPurgedAfter(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let removed = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/gone", events: ["click"], secret: "s")
            let kept = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/kept", events: ["click"], secret: "s")
            try await store.enqueueDeliveries((0..<5).map { Self.delivery("r\($0)", webhook: removed.id) }, maximumPending: 100)
            try await store.enqueueDeliveries([Self.delivery("k0", webhook: kept.id)], maximumPending: 100)

            #expect(try await store.deleteWebhook(id: removed.id, projectId: "other") == false)
            #expect(try await store.deleteWebhook(id: removed.id, projectId: "pictlink"))
            #expect(try await store.deleteWebhook(id: removed.id, projectId: "pictlink") == false)
            #expect(try await store.webhooks(projectId: "pictlink").map(\.id) == [kept.id])
            #expect(try await store.webhooks(projectId: nil).map(\.id) == [kept.id])
            try await store.enqueueDeliveries([Self.delivery("r5", webhook: removed.id)], maximumPending: 100)
            let leased = try await store.leaseDeliveries(now: Date(timeIntervalSince1970: Self.start + 1), limit: 10, lease: .seconds(60))
            #expect(leased.map(\.0.id) == ["k0"])
            #expect(try await store.deliveries(webhookId: removed.id, limit: 100).count == 5)

            #expect(try await store.purgeDeletedWebhooks(limit: 2) == 2)
            #expect(try await store.deliveries(webhookId: removed.id, limit: 100).count == 3)
            #expect(try await Self.webhookRows(in: store) == 2)
            #expect(try await store.purgeDeletedWebhooks(limit: 2) == 2)
            #expect(try await store.purgeDeletedWebhooks(limit: 2) == 1)
            #expect(try await Self.webhookRows(in: store) == 1)
            #expect(try await store.purgeDeletedWebhooks(limit: 2) == 0)
            #expect(try await store.deliveries(webhookId: kept.id, limit: 100).map(\.id) == ["k0"])
        }
    }

    /// A link written with an event for a webhook whose row is being deleted (the purge after its removal) is saved
    /// without the event: on PostgreSQL the delivery's foreign key waited for the deleting transaction and then
    /// failed the link's write.
    @Test(arguments: StoreKind.available) func aLinkWrittenAsItsWebhookIsPurgedIsSaved(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let webhook = try await store.insertWebhook(
                projectId: "pictlink", url: "https://hooks.example.com/purged", events: ["link.created"], secret: "s")
            let events: EventDeliveries<ShortLinkRecord> = Self.events(to: webhook.id, "link.created") { link in link.code }
            guard let postgres = store as? PostgresStore else {
                // One writer: the purge and the link's write never overlap.
                _ = try await store.deleteWebhook(id: webhook.id, projectId: "pictlink")
                _ = try await store.purgeDeletedWebhooks(limit: 100)
                _ = try await store.insertLink(StoreConformanceTests.draft("purged"), events: events)
                #expect(try await store.link(domain: "https://go.pictlink.com", code: "purged") != nil)
                return
            }
            // The row's deletion holds its lock for a moment, as a purge's statement does, while the link is written.
            async let purge: Void = postgres.transaction { connection in
                try await connection.query("DELETE FROM webhooks WHERE id = \(webhook.id)", logger: TestStore.logger)
                try await Task.sleep(for: .milliseconds(300))
            }
            try await Task.sleep(for: .milliseconds(100))
            _ = try await store.insertLink(StoreConformanceTests.draft("purged"), events: events)
            try await purge
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "purged") != nil)
            #expect(try await store.deliveries(webhookId: webhook.id, limit: 10).isEmpty)
        }
    }

    /// A project's webhooks are capped with adds at once, on several instances: counted and added in one transaction.
    /// A removed webhook leaves its place at once.
    @Test(arguments: StoreKind.available) func addsAtOnceNeverPassTheWebhookCap(_ kind: StoreKind) async throws {
        try await TestStore.withTwoInstances(kind) { store, second in
            let added = try await withThrowingTaskGroup(of: WebhookRecord?.self) { group in
                for index in 0..<30 {
                    let store = index % 2 == 0 ? store : second
                    group.addTask {
                        try await store.insertWebhook(
                            projectId: "pictlink", url: "https://hooks.example.com/\(index)", events: ["click"], secret: "s", maximumPerProject: 20)
                    }
                }
                return try await group.reduce(into: [WebhookRecord]()) { if let webhook = $1 { $0.append(webhook) } }
            }
            #expect(added.count == 20)
            #expect(try await store.webhooks(projectId: "pictlink").count == 20)
            // Another project has its own places; a removed webhook's place is free again.
            #expect(
                try await store.insertWebhook(
                    projectId: "other", url: "https://hooks.example.com/o", events: ["click"], secret: "s", maximumPerProject: 20) != nil)
            #expect(try await store.deleteWebhook(id: added[0].id, projectId: "pictlink"))
            #expect(
                try await store.insertWebhook(
                    projectId: "pictlink", url: "https://hooks.example.com/again", events: ["click"], secret: "s", maximumPerProject: 20) != nil)
            #expect(
                try await store.insertWebhook(
                    projectId: "pictlink", url: "https://hooks.example.com/over", events: ["click"], secret: "s", maximumPerProject: 20) == nil)
        }
    }

    /// The pending count each webhook's row keeps (the cap reads it) follows every change of its deliveries: written,
    /// delivered, retried, given up, put back by hand, purged, deleted with the webhook's removal, and by hand.
    @Test(arguments: StoreKind.available) func eachWebhooksPendingCountFollowsItsDeliveries(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let hook = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/a", events: ["click"], secret: "s")
            let other = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/b", events: ["click"], secret: "s")
            func expectCountsMatch(_ step: String) async throws {
                let sql = """
                    SELECT w.pending AS kept, (SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'PENDING') AS counted
                    FROM webhooks w
                    """
                if let sqlite = store as? SQLiteStore {
                    for row in try await sqlite.writer.read({ db in try Row.fetchAll(db, sql: sql) }) {
                        #expect(row["kept"] as Int == row["counted"] as Int, "after \(step)")
                    }
                } else {
                    for row in try await #require(store as? PostgresStore).rows(PostgresQuery(unsafeSQL: sql)) {
                        #expect(try row.value("kept", as: Int64.self) == row.value("counted", as: Int64.self), "after \(step)")
                    }
                }
            }
            try await store.enqueueDeliveries(
                (0..<6).map { Self.delivery("a\($0)", webhook: hook.id) } + (0..<2).map { Self.delivery("b\($0)", webhook: other.id) },
                maximumPending: 100)
            // The same ids again are ignored.
            try await store.enqueueDeliveries([Self.delivery("a0", webhook: hook.id)], maximumPending: 100)
            try await expectCountsMatch("writes")
            let at = Date(timeIntervalSince1970: Self.start + 10)
            try await store.recordAttempt(deliveryId: "a0", delivered: true, status: 200, error: nil, retryAt: nil, at: at)
            try await store.recordAttempt(deliveryId: "a1", delivered: false, status: 500, error: "HTTP 500", retryAt: at + 60, at: at)
            try await store.recordAttempt(deliveryId: "a2", delivered: false, status: nil, error: "timeout", retryAt: nil, at: at)
            try await expectCountsMatch("attempts")
            try await StoreConformanceTests.withoutForeignKeys("UPDATE webhook_deliveries SET status = 'PENDING' WHERE id = 'a2'", in: store)
            try await expectCountsMatch("a delivery put back by hand")
            _ = try await store.purgeFinishedDeliveries(before: Date(timeIntervalSince1970: Self.start + 1_000_000), limit: 100)
            try await StoreConformanceTests.withoutForeignKeys("DELETE FROM webhook_deliveries WHERE id = 'a3'", in: store)
            try await expectCountsMatch("purges")
            try await StoreConformanceTests.withoutForeignKeys("UPDATE webhook_deliveries SET webhook_id = \(other.id) WHERE id = 'a4'", in: store)
            try await StoreConformanceTests.withoutForeignKeys("UPDATE webhook_deliveries SET webhook_id = \(hook.id) WHERE id = 'a4'", in: store)
            try await expectCountsMatch("a delivery moved by hand")
            #expect(try await store.deleteWebhook(id: other.id, projectId: "pictlink"))
            _ = try await store.purgeDeletedWebhooks(limit: 1)
            try await expectCountsMatch("a removal")
            // Full: the cap reads the kept count (a1, a2, a4, a5 pending).
            let left = try await store.enqueueDeliveries((6..<10).map { Self.delivery("a\($0)", webhook: hook.id) }, maximumPending: 6)
            #expect(left == 2)
            try await expectCountsMatch("a full webhook")
            if kind == .postgres {
                try await StoreConformanceTests.withoutForeignKeys("TRUNCATE webhook_deliveries", in: store)
                try await expectCountsMatch("a truncation")
            }
        }
    }

    /// Writes at once, on two instances, each adding deliveries for the same webhooks in its own order (a click batch,
    /// a link's events) never deadlock on the webhooks' counters, and the counts stay exact.
    @Test(arguments: StoreKind.available) func writesAtOnceNeverDeadlockOnTheCounters(_ kind: StoreKind) async throws {
        try await TestStore.withTwoInstances(kind) { store, second in
            var hooks: [Int64] = []
            for index in 0..<4 {
                hooks.append(
                    try await store.insertWebhook(
                        projectId: "pictlink", url: "https://hooks.example.com/\(index)", events: ["click"], secret: "s"
                    ).id)
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<24 {
                    let store = writer % 2 == 0 ? store : second
                    let order = writer % 3 == 0 ? hooks : hooks.reversed()
                    group.addTask {
                        for round in 0..<5 {
                            let deliveries = (0..<32).map { Self.delivery("w\(writer)-\(round)-\($0)", webhook: order[$0 % order.count]) }
                            _ = try await store.enqueueDeliveries(deliveries, maximumPending: 100_000)
                        }
                    }
                }
                try await group.waitForAll()
            }
            for hook in hooks {
                let pending = try await store.deliveries(webhookId: hook, limit: 10_000).count
                #expect(pending == 24 * 5 * 32 / 4)
            }
            // The cap reads the counters: each webhook holds 960, so a cap of 961 leaves one place each.
            let more = hooks.flatMap { hook in (0..<2).map { Self.delivery("more-\(hook)-\($0)", webhook: hook) } }
            #expect(try await store.enqueueDeliveries(more, maximumPending: 961) == 4)
        }
    }

    /// The rows of the webhooks table, removed ones included.
    static func webhookRows(in store: any RelinkStore) async throws -> Int {
        if let sqlite = store as? SQLiteStore {
            return try await sqlite.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhooks") ?? 0 }
        }
        let rows = try await #require(store as? PostgresStore).rows(PostgresQuery(unsafeSQL: "SELECT COUNT(*) AS n FROM webhooks"))
        return Int(try rows.first?.value("n", as: Int64.self) ?? 0)
    }
}
