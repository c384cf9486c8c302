import Foundation

extension WebhookRecord {
    static let columns = "id, project_id, url, events, secret, created_at"

    init(row: some StoreRow, prefix: String = "") throws {
        self.init(
            id: try row.integer(prefix + "id"), projectId: try row.text(prefix + "project_id"), url: try row.text(prefix + "url"),
            events: try row.text(prefix + "events").split(separator: ",").map(String.init), secret: try row.text(prefix + "secret"),
            createdAt: try row.date(prefix + "created_at"))
    }
}

extension WebhookDelivery {
    static let columns =
        "id, webhook_id, event, payload, created_at, attempts, next_attempt_at, status, last_status, last_error, delivered_at"

    init(row: some StoreRow) throws {
        self.init(
            id: try row.text("id"), webhookId: try row.integer("webhook_id"), event: try row.text("event"), payload: try row.text("payload"),
            createdAt: try row.date("created_at"), attempts: Int(try row.integer("attempts")), nextAttemptAt: try row.date("next_attempt_at"),
            status: Status(rawValue: try row.text("status")) ?? .pending, lastStatus: try row.optionalInteger("last_status").map { Int($0) },
            lastError: try row.optionalText("last_error"), deliveredAt: try row.optionalDate("delivered_at"))
    }

    /// The columns of a leased delivery joined with its webhook's, which come as `w_…`.
    static let leasedColumns =
        "d.id, d.webhook_id, d.event, d.payload, d.created_at, d.attempts, d.next_attempt_at, d.status, d.last_status, d.last_error, "
        + "d.delivered_at, w.id AS w_id, w.project_id AS w_project_id, w.url AS w_url, w.events AS w_events, w.secret AS w_secret, "
        + "w.created_at AS w_created_at"
}
