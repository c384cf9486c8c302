/// What a webhook can subscribe to.
public enum WebhookEvent: String, Codable, CaseIterable, Sendable {
    case linkCreated = "link.created"
    case linkUpdated = "link.updated"
    case click = "click"
    case installClaimed = "install.claimed"
    case firstOpen = "app.first_open"
    case reOpen = "app.re_open"
    /// Sent by `relink webhooks test` only; nobody subscribes to it.
    case test = "webhook.test"
}

/// `POST /v1/webhooks`.
public struct CreateWebhookRequest: Codable, Sendable, Equatable {
    public var url: String
    /// Event names; all of them when absent.
    public var events: [String]?

    public init(url: String, events: [String]? = nil) {
        self.url = url
        self.events = events
    }
}

/// A webhook as the API shows it; `secret` only in the answer that created it.
public struct WebhookInfo: Codable, Sendable, Equatable {
    public var id: String
    public var url: String
    public var events: [String]
    public var createTime: String
    public var secret: String?

    public init(id: String, url: String, events: [String], createTime: String, secret: String? = nil) {
        self.id = id
        self.url = url
        self.events = events
        self.createTime = createTime
        self.secret = secret
    }
}

public struct WebhookListResponse: Codable, Sendable, Equatable {
    public var webhooks: [WebhookInfo]
    public init(webhooks: [WebhookInfo]) { self.webhooks = webhooks }
}

/// One delivery as the API shows it.
public struct WebhookDeliveryInfo: Codable, Sendable, Equatable {
    public var id: String
    public var event: String
    /// `PENDING`, `DELIVERED` or `FAILED` (given up after a day of retries).
    public var status: String
    public var attempts: Int
    public var createTime: String
    public var nextAttemptTime: String?
    public var deliverTime: String?
    /// The receiver's last HTTP status, when it answered.
    public var lastStatus: Int?
    public var lastError: String?

    public init(
        id: String, event: String, status: String, attempts: Int, createTime: String, nextAttemptTime: String?, deliverTime: String?,
        lastStatus: Int?, lastError: String?
    ) {
        self.id = id
        self.event = event
        self.status = status
        self.attempts = attempts
        self.createTime = createTime
        self.nextAttemptTime = nextAttemptTime
        self.deliverTime = deliverTime
        self.lastStatus = lastStatus
        self.lastError = lastError
    }
}

public struct WebhookDeliveriesResponse: Codable, Sendable, Equatable {
    public var deliveries: [WebhookDeliveryInfo]
    public init(deliveries: [WebhookDeliveryInfo]) { self.deliveries = deliveries }
}
