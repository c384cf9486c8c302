import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import ServiceLifecycle
import Testing

@testable import RelinkServer
@testable import RelinkStore

/// What bounds the webhook outbox from the API's side: test events are rate-limited per webhook, a webhook's
/// backlog is capped (a test event past it is refused, other events are dropped and counted), finished deliveries
/// are deleted after their retention by the running service, and a subscription is refused for every spelling of an
/// address the sender would refuse.
@Suite("Webhook outbox limits")
struct WebhookOutboxLimitTests {
    typealias T = TestSupport

    static let logger = {
        var logger = Logger(label: "relink.test.webhooks")
        logger.logLevel = .critical
        return logger
    }()

    /// The API's webhook routes alone, with the test limiter's time held still (a burst gets exactly its budget).
    static func application(_ store: any RelinkStore, maximumPending: Int = WebhookService.maximumPendingPerWebhook) -> some ApplicationProtocol {
        let router = Router(context: RelinkRequestContext.self)
        let authenticator = APIKeyAuthenticator(store: store, configuration: T.configuration, limiter: ClientLimiter(elapsed: T.stillTime))
        let api = router.group(RouterPath(APIPath.version)).add(middleware: APIKeyMiddleware(authenticator: authenticator))
        let service = WebhookService(store: store, fetcher: SafeFetcher(), maximumPending: maximumPending, logger: logger)
        WebhooksController(service: service, policy: OutboundAddressPolicy(), testLimiter: RateLimiter(elapsed: T.stillTime)).addRoutes(to: api)
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: logger)
    }

    static func sendTest(_ client: some TestClientProtocol, key: String, webhook: String) async throws -> TestResponse {
        try await client.execute(uri: "/v1/webhooks/\(webhook)/test?key=\(key)", method: .post)
    }

    @Test func testEventsAreRateLimitedPerWebhook() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store).test(.router) { client in
            let first = try await WebhookTests.addWebhook(client, key: key, url: "https://hooks.example.com/first")
            let second = try await WebhookTests.addWebhook(client, key: key, url: "https://hooks.example.com/second")
            for index in 0..<WebhooksController.testLimit.burst {
                let answer = try await Self.sendTest(client, key: key, webhook: first.id)
                #expect(answer.status == .ok, "test event \(index): \(answer.text)")
            }
            let refused = try await Self.sendTest(client, key: key, webhook: first.id)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.text.contains(#""status":"RESOURCE_EXHAUSTED""#), "\(refused.text)")
            #expect(Int(refused.headers[.retryAfter] ?? "") ?? 0 >= 1)
            // Another webhook has a budget of its own.
            #expect(try await Self.sendTest(client, key: key, webhook: second.id).status == .ok)
            let queued = try await store.deliveries(webhookId: try #require(Int64(first.id)), limit: 100)
            #expect(queued.count == WebhooksController.testLimit.burst)
        }
    }

    @Test func aWebhooksBacklogIsCapped() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store, maximumPending: 3).test(.router) { client in
            let webhook = try await WebhookTests.addWebhook(client, key: key, url: "https://hooks.example.com/down")
            for _ in 0..<3 { #expect(try await Self.sendTest(client, key: key, webhook: webhook.id).status == .ok) }
            // A test event past the cap is refused (its delivery id would name nothing), not dropped unseen.
            let refused = try await Self.sendTest(client, key: key, webhook: webhook.id)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.text.contains("3 deliveries waiting"), "\(refused.text)")
            #expect(try await store.deliveries(webhookId: try #require(Int64(webhook.id)), limit: 100).count == 3)
        }

        // Other events past the cap are dropped; the webhook's backlog stays at the cap.
        let service = WebhookService(store: store, fetcher: SafeFetcher(), maximumPending: 3, logger: Self.logger)
        await service.reloadSubscriptions()
        struct Data: Encodable, Sendable { var n: Int }
        for index in 0..<5 { await service.emit(.linkCreated, projectId: "pictlink", data: Data(n: index)) }
        for index in 0..<5 { service.emitClick(projectId: "pictlink", data: Data(n: index)) }
        await service.writeClicks()
        let webhooks = try await store.webhooks(projectId: "pictlink")
        #expect(try await store.deliveries(webhookId: try #require(webhooks.first?.id), limit: 100).count == 3)
    }

    @Test func theRunningServiceDeletesFinishedDeliveriesPastTheirRetention() async throws {
        let store = try SQLiteStore()
        let webhook = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/a", events: ["click"], secret: "s")
        let now = Date()
        let old = now - WebhookService.finishedRetention - 3600
        let recent = now - WebhookService.finishedRetention + 3600
        let deliveries = [("old-delivered", old), ("old-failed", old), ("recent-delivered", recent), ("old-pending", old)].map { id, date in
            WebhookDelivery(id: id, webhookId: webhook.id, event: "click", payload: "{}", createdAt: date, nextAttemptAt: date)
        }
        try await store.enqueueDeliveries(deliveries, maximumPending: 100)
        for delivery in deliveries.prefix(3) {
            let failed = delivery.id == "old-failed"
            try await store.recordAttempt(
                deliveryId: delivery.id, delivered: !failed, status: failed ? 500 : 200, error: nil, retryAt: nil, at: delivery.createdAt)
        }
        // Still retried: its next attempt is an hour away.
        try await store.recordAttempt(deliveryId: "old-pending", delivered: false, status: 500, error: nil, retryAt: now + 3600, at: old)

        let service = WebhookService(store: store, fetcher: SafeFetcher(), interval: .milliseconds(50), logger: Self.logger)
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: Self.logger))
        let task = Task { try await group.run() }
        let deadline = ContinuousClock.now + .seconds(30)
        var left: Set<String> = []
        repeat {
            try await Task.sleep(for: .milliseconds(50))
            left = Set(try await store.deliveries(webhookId: webhook.id, limit: 100).map(\.id))
        } while left.count > 2 && ContinuousClock.now < deadline
        await group.triggerGracefulShutdown()
        try await task.value
        #expect(left == ["recent-delivered", "old-pending"])
    }

    @Test func subscribingRefusesEverySpellingOfAnAddressTheSenderRefuses() async throws {
        let (store, key) = try await T.storeWithKey()
        try await Self.application(store).test(.router) { client in
            let refused = [
                "127.1", "0x7f000001", "2130706433", "0177.0.0.1", "0x7f.1", "127.0.1", "0", "127.000.000.001", "127.0.0.1.", "localhost",
                "localhost.", "LOCALHOST", "api.localhost", "[::ffff:7f00:1]", "[0:0:0:0:0:ffff:127.0.0.1]", "0xa9fea9fe", "10.1", "[::1]",
            ]
            for host in refused {
                let answer = try await client.execute(
                    uri: "/v1/webhooks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"url": "http://\#(host):8080/hook"}"#))
                #expect(answer.status == .badRequest, "\(host): \(answer.status) \(answer.text)")
                #expect(answer.text.contains("url is refused"), "\(host): \(answer.text)")
            }
            // Names are left to the sender's check after DNS; a public address spelled in hex is what the sender reads too.
            for host in ["hooks.example.com", "0x5db8d822", "localhost.example.com"] {
                let answer = try await client.execute(
                    uri: "/v1/webhooks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"url": "https://\#(host)/hook"}"#))
                #expect(answer.status == .ok, "\(host): \(answer.text)")
            }
        }
    }

    @Test func theSubscriptionCheckFollowsTheOperatorsNetworks() {
        let loopbackV4 = WebhookHostCheck(policy: OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.0/8")!]))
        #expect(loopbackV4.refusal("127.1") == nil)
        #expect(loopbackV4.refusal("0x7f000001") == nil)
        // localhost may be answered with ::1, which the operator did not allow, so the sender would refuse it.
        #expect(loopbackV4.refusal("localhost")?.hasPrefix("0:0:0:0:0:0:0:1 is loopback") == true)
        let both = WebhookHostCheck(policy: OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.0/8")!, IPNetwork("::1/128")!]))
        #expect(both.refusal("localhost.") == nil)
        #expect(WebhookHostCheck(policy: OutboundAddressPolicy()).refusal("0x7f.1") == "127.0.0.1 is loopback (127.0.0.0/8), spelled 0x7f.1")
    }
}
