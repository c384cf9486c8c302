import RelinkStore

/// Click events for webhooks waiting for the next outbox write: at most `capacity` in all and `perWebhook` for each
/// webhook in one interval (a flood of clicks on one project's links must not bury its other events, nor other
/// projects'); past either they are dropped and counted. A batch the outbox refuses is not retried.
struct WebhookClickBuffer: WriteBuffer {
    let capacity: Int
    let perWebhook: Int
    private(set) var pending: [WebhookDelivery] = []
    /// Click events taken by each webhook in this interval.
    private var taken: [Int64: Int] = [:]
    /// Click events dropped since `takeDropped` was last asked.
    private(set) var dropped = 0

    init(capacity: Int, perWebhook: Int) {
        self.capacity = capacity
        self.perWebhook = perWebhook
    }

    mutating func record(_ delivery: WebhookDelivery) -> RecordAction {
        let count = taken[delivery.webhookId, default: 0]
        guard pending.count < capacity, count < perWebhook else {
            dropped += 1
            return .dropped
        }
        pending.append(delivery)
        taken[delivery.webhookId] = count + 1
        return .kept
    }

    /// The click events dropped since the last time it was asked; the count starts again.
    mutating func takeDropped() -> Int {
        defer { dropped = 0 }
        return dropped
    }

    /// The interval's click events; the next interval starts with each webhook's allowance whole.
    mutating func takeBatch() -> [WebhookDelivery] {
        defer {
            pending = []
            taken = [:]
        }
        return pending
    }

    mutating func writeSucceeded() {}

    /// Lost: the batch is not retried (the outbox is the store; a click's webhook event is worth less than a fresh batch).
    mutating func writeFailed(_ batch: [WebhookDelivery]) -> Int { batch.count }

    static func count(of batch: [WebhookDelivery]) -> Int { batch.count }
}
