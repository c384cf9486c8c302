import Foundation

/// Webhook subscriptions and their outbox of deliveries.
public protocol WebhookRepository: Sendable {
    func insertWebhook(projectId: String, url: String, events: [String], secret: String) async throws -> WebhookRecord
    /// A project's webhooks (every project's with nil), oldest first.
    func webhooks(projectId: String?) async throws -> [WebhookRecord]
    /// Removes a webhook of `projectId` and its deliveries; false when there is none.
    func deleteWebhook(id: Int64, projectId: String) async throws -> Bool
    /// Writes deliveries to the outbox (a delivery id already there is left alone).
    func enqueueDeliveries(_ deliveries: [WebhookDelivery]) async throws
    /// Leases up to `limit` pending deliveries due at `now` whose lease has run out, for `lease`: each is handed to
    /// one caller at a time, across instances.
    func leaseDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [(WebhookDelivery, WebhookRecord)]
    /// Records an attempt: delivered, to be retried at `retryAt`, or given up (failed) when `retryAt` is nil.
    func recordAttempt(
        deliveryId: String, delivered: Bool, status: Int?, error: String?, retryAt: Date?, at now: Date
    ) async throws
    /// A webhook's latest deliveries, newest first.
    func deliveries(webhookId: Int64, limit: Int) async throws -> [WebhookDelivery]
}
