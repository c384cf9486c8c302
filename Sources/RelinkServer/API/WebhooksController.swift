import Foundation
import Hummingbird
import RelinkCore
import RelinkStore

/// A project's webhooks: list, add (the signing secret is shown once), remove, send a test event, read recent
/// deliveries with their status.
struct WebhooksController: Sendable {
    let service: WebhookService
    let policy: OutboundAddressPolicy
    /// Test events per webhook: each is a row in the outbox and a POST to the receiver.
    var testLimiter = RateLimiter<Int64>(capacity: 10_000)
    /// Counts the test events refused (`relink_rate_limited_total{endpoint="webhook_test"}`).
    var metrics: RelinkMetrics?

    /// Test events a webhook may be sent: ten at once, then one every six seconds.
    static let testLimit = RateLimit(requestsPerSecond: 1.0 / 6, burst: 10)

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        let path = APIPath.webhooks
        group.get(RouterPath(path)) { _, context in try await list(context) }
        group.post(RouterPath(path)) { request, context in try await add(request, context) }
        group.delete(RouterPath("\(path)/:id")) { _, context in try await remove(context) }
        group.post(RouterPath("\(path)/:id/test")) { _, context in try await test(context) }
        group.get(RouterPath("\(path)/:id/deliveries")) { request, context in try await deliveries(request, context) }
    }

    /// 32 random base-62 characters (190 bits).
    static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return ShortCodeGenerator.random(length: 32, using: &generator)
    }

    static func info(_ webhook: WebhookRecord, secret: Bool = false) -> WebhookInfo {
        WebhookInfo(
            id: String(webhook.id), url: webhook.url, events: webhook.events, createTime: APITime.format(webhook.createdAt),
            secret: secret ? webhook.secret : nil)
    }

    func list(_ context: RelinkRequestContext) async throws -> WebhookListResponse {
        let caller = try context.requireCaller()
        return WebhookListResponse(webhooks: try await service.store.webhooks(projectId: caller.project.id).map { Self.info($0) })
    }

    func add(_ request: Request, _ context: RelinkRequestContext) async throws -> WebhookInfo {
        let caller = try context.requireCaller()
        let body = try await request.decode(as: CreateWebhookRequest.self, context: context)
        guard let uri = AbsoluteURI(body.url), uri.isHTTP, let host = uri.host, body.url.utf8.count <= 2048,
            body.url.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value != 0x7F })
        else {
            throw APIError.invalidArgument(
                "url must be an http(s) URL of at most 2048 ASCII characters (percent-encode the rest, punycode the host).")
        }
        guard let components = URLComponents(string: body.url), components.user == nil, components.password == nil else {
            throw APIError.invalidArgument("url must not carry a user name or password; put a token in its path or query instead.")
        }
        // Every spelling of an address the sender would refuse (not only the canonical one), read from the host the
        // sender reads; names are checked after DNS, when sent.
        if let reason = WebhookHostCheck(policy: policy).refusal(components.host ?? host) {
            throw APIError.invalidArgument("url is refused: \(reason); webhooks go to public addresses (or networks the operator allows).")
        }
        let known = WebhookEvent.allCases.filter { $0 != .test }.map(\.rawValue)
        let events = body.events ?? known
        guard !events.isEmpty else { throw APIError.invalidArgument("events must name at least one event: \(known.joined(separator: ", ")).") }
        if let unknown = events.first(where: { !known.contains($0) }) {
            throw APIError.invalidArgument("'\(unknown.leadingScalars(60))' is not an event; events are \(known.joined(separator: ", ")).")
        }
        guard
            let webhook = try await service.store.insertWebhook(
                projectId: caller.project.id, url: body.url, events: Array(Set(events)).sorted(), secret: "whsec_" + Self.randomSecret(),
                maximumPerProject: WebhookService.maximumPerProject)
        else {
            throw APIError.invalidArgument("A project has at most \(WebhookService.maximumPerProject) webhooks; remove one first.")
        }
        await service.reloadSubscriptions()
        return Self.info(webhook, secret: true)
    }

    func webhook(_ context: RelinkRequestContext) async throws -> WebhookRecord {
        let caller = try context.requireCaller()
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }),
            let webhook = try await service.store.webhooks(projectId: caller.project.id).first(where: { $0.id == id })
        else { throw APIError.notFound("No such webhook in project \(caller.project.id).") }
        return webhook
    }

    func remove(_ context: RelinkRequestContext) async throws -> WebhookInfo {
        let webhook = try await webhook(context)
        guard try await service.store.deleteWebhook(id: webhook.id, projectId: webhook.projectId) else {
            throw APIError.notFound("No such webhook in project \(webhook.projectId).")
        }
        await service.reloadSubscriptions()
        service.purgeSoon()
        return Self.info(webhook)
    }

    struct TestResponse: ResponseEncodable {
        var deliveryId: String
    }

    func test(_ context: RelinkRequestContext) async throws -> TestResponse {
        let webhook = try await webhook(context)
        if case .failure(let error) = testLimiter.acquire(keyId: webhook.id, limit: Self.testLimit, limiting: "test events of webhook \(webhook.id)")
        {
            metrics?.rateLimited("webhook_test")
            throw error
        }
        struct TestData: Encodable, Sendable { var message: String }
        let id = DeferredLinkService.newClickID()
        let now = Date()
        guard
            let payload = WebhookService.payload(
                id: id, event: .test, projectId: webhook.projectId, at: now, data: TestData(message: "A test event from relink webhooks test."))
        else { throw APIError.internal }
        let dropped = try await service.store.enqueueDeliveries(
            [WebhookDelivery(id: id, webhookId: webhook.id, event: WebhookEvent.test.rawValue, payload: payload, createdAt: now, nextAttemptAt: now)],
            maximumPending: service.maximumPending)
        if dropped > 0 {
            // Said to the caller rather than dropped unseen: the delivery id would name nothing.
            service.countDroppedOverPending(dropped)
            throw APIError(
                status: .tooManyRequests,
                message:
                    "Webhook \(webhook.id) has \(service.maximumPending) deliveries waiting (its receiver is down or slow); a test event can be queued once some are delivered or given up.",
                headers: [.retryAfter: "60"])
        }
        // Removed meanwhile (on any instance): its delivery was not written, or goes with the webhook's other ones.
        guard try await service.store.webhooks(projectId: webhook.projectId).contains(where: { $0.id == webhook.id }) else {
            throw APIError.notFound("No such webhook in project \(webhook.projectId).")
        }
        return TestResponse(deliveryId: id)
    }

    func deliveries(_ request: Request, _ context: RelinkRequestContext) async throws -> WebhookDeliveriesResponse {
        let webhook = try await webhook(context)
        let limit = try LinksController.integer(request.uri.queryParameters.get("limit"), name: "limit", default: 50, in: 1...500)
        return WebhookDeliveriesResponse(
            deliveries: try await service.store.deliveries(webhookId: webhook.id, limit: limit).map { delivery in
                WebhookDeliveryInfo(
                    id: delivery.id, event: delivery.event, status: delivery.status.rawValue, attempts: delivery.attempts,
                    createTime: APITime.format(delivery.createdAt),
                    nextAttemptTime: delivery.status == .pending ? APITime.format(delivery.nextAttemptAt) : nil,
                    deliverTime: delivery.deliveredAt.map(APITime.format), lastStatus: delivery.lastStatus, lastError: delivery.lastError)
            })
    }
}
