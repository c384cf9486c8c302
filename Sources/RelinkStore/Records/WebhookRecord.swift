import Foundation

/// A project's subscription: `events` are POSTed to `url`, signed with `secret`.
public struct WebhookRecord: Sendable, Equatable {
    public var id: Int64
    public var projectId: String
    public var url: String
    /// Event names (`link.created`, `click`, …), sorted.
    public var events: [String]
    /// The signing secret: the sender must hold it, as with every provider of signed webhooks; shown once.
    public var secret: String
    public var createdAt: Date

    public init(id: Int64, projectId: String, url: String, events: [String], secret: String, createdAt: Date) {
        self.id = id
        self.projectId = projectId
        self.url = url
        self.events = events
        self.secret = secret
        self.createdAt = createdAt
    }
}

/// One event on its way to one webhook: written to the outbox before anything is sent, so a restart or a crash
/// loses none; delivered by whichever instance leases it first.
public struct WebhookDelivery: Sendable, Equatable {
    public enum Status: String, Sendable {
        case pending = "PENDING"
        case delivered = "DELIVERED"
        case failed = "FAILED"
    }

    /// The second it was made and 95 random bits, base 62: sent as `Relink-Delivery` so receivers can drop a repeat.
    public var id: String
    public var webhookId: Int64
    public var event: String
    /// The JSON body, as signed and sent.
    public var payload: String
    public var createdAt: Date
    public var attempts: Int
    public var nextAttemptAt: Date
    public var status: Status
    /// The receiver's last HTTP status, when it answered.
    public var lastStatus: Int?
    public var lastError: String?
    public var deliveredAt: Date?

    public init(
        id: String, webhookId: Int64, event: String, payload: String, createdAt: Date, attempts: Int = 0, nextAttemptAt: Date,
        status: Status = .pending, lastStatus: Int? = nil, lastError: String? = nil, deliveredAt: Date? = nil
    ) {
        self.id = id
        self.webhookId = webhookId
        self.event = event
        self.payload = payload
        self.createdAt = createdAt
        self.attempts = attempts
        self.nextAttemptAt = nextAttemptAt
        self.status = status
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.deliveredAt = deliveredAt
    }
}
