import Foundation

/// Webhook subscriptions and their outbox of deliveries.
public protocol WebhookRepository: Sendable {
    /// Adds a webhook to `projectId`, unless the project has `maximumPerProject` already: nil then. Counted and added
    /// in one transaction, so requests at once never pass the cap together.
    func insertWebhook(projectId: String, url: String, events: [String], secret: String, maximumPerProject: Int) async throws -> WebhookRecord?
    /// A project's webhooks (every project's with nil), oldest first.
    func webhooks(projectId: String?) async throws -> [WebhookRecord]
    /// Removes a webhook of `projectId` at once: it is no longer listed, written to or sent from. Its deliveries, which
    /// can be millions, go later, with the webhook's row, by `purgeDeletedWebhooks`. False when there is none.
    func deleteWebhook(id: Int64, projectId: String) async throws -> Bool
    /// Deletes up to `limit` deliveries of removed webhooks, and the rows of removed webhooks with none left.
    /// - Returns: how many deliveries were deleted; `limit` means there may be more.
    func purgeDeletedWebhooks(limit: Int) async throws -> Int
    /// Writes deliveries to the outbox (a delivery id already there is left alone), but none of a webhook that has
    /// `maximumPending` pending deliveries (those written here counted): a receiver that is down must not grow the
    /// outbox without bound. Instances writing at once may each fill the last room, so the cap holds within a batch.
    /// - Returns: how many were left out for their webhook's cap.
    @discardableResult
    func enqueueDeliveries(_ deliveries: [WebhookDelivery], maximumPending: Int) async throws -> Int
    /// Leases up to `limit` pending deliveries due at `now` whose lease has run out, for `lease`: each is handed to
    /// one caller at a time, across instances; no webhook has more than `webhookDeliveriesInFlight` leased at once, and
    /// the projects, then the webhooks, with the fewest in flight come first.
    func leaseDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [(WebhookDelivery, WebhookRecord)]
    /// Records an attempt: delivered, to be retried at `retryAt`, or given up (failed) when `retryAt` is nil.
    func recordAttempt(
        deliveryId: String, delivered: Bool, status: Int?, error: String?, retryAt: Date?, at now: Date
    ) async throws
    /// A webhook's latest deliveries, newest first.
    func deliveries(webhookId: Int64, limit: Int) async throws -> [WebhookDelivery]
    /// Deletes up to `limit` delivered or given-up deliveries whose last attempt was due before `before` (the
    /// outbox's retention); pending ones are never touched.
    /// - Returns: how many were deleted; `limit` means there may be more.
    func purgeFinishedDeliveries(before: Date, limit: Int) async throws -> Int
}

extension WebhookRepository {
    /// Adds a webhook, whatever the project has (tests, tools).
    public func insertWebhook(projectId: String, url: String, events: [String], secret: String) async throws -> WebhookRecord {
        guard let webhook = try await insertWebhook(projectId: projectId, url: url, events: events, secret: secret, maximumPerProject: .max) else {
            throw StoreError.unavailable("the webhook was not added")
        }
        return webhook
    }

    /// The most deliveries of one webhook in flight at once, across instances: a slow receiver holds no more slots.
    public static var webhookDeliveriesInFlight: Int { WebhookLease.deliveriesPerWebhook }
}
