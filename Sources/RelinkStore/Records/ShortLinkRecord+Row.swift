import Foundation
import RelinkCore

extension ShortLinkRecord {
    /// The `links` columns a record is read from, in both stores.
    static let columns =
        "id, project_id, domain, code, long_link, parameters, suffix_option, idempotency_key, disabled, expires_at, created_at, updated_at, archived, name, fetch_preview, preview, rules, max_clicks, expired_link"

    init(row: some StoreRow) throws {
        try self.init(row: row, parameters: try StoreCoding.decode(try row.text("parameters")))
    }

    /// A record from its row and its parameters, decoded by the caller (the SQLite store has SQLite decode them).
    init(row: some StoreRow, parameters: LinkParameters) throws {
        self.init(
            id: try row.integer("id"), projectId: try row.text("project_id"), domain: try row.text("domain"),
            code: try row.text("code"), longLink: try row.text("long_link"), parameters: parameters,
            suffixOption: SuffixOption(rawValue: try row.text("suffix_option")) ?? .unguessable,
            idempotencyKey: try row.optionalText("idempotency_key"), disabled: try row.bool("disabled"),
            expiresAt: try row.optionalDate("expires_at"), createdAt: try row.date("created_at"),
            updatedAt: try row.date("updated_at"), archived: try row.bool("archived"), name: try row.optionalText("name"),
            fetchPreview: try row.bool("fetch_preview"), preview: try row.optionalText("preview").map { try StoreCoding.decode(preview: $0) },
            rules: try row.optionalText("rules").map { try StoreCoding.decode(rules: $0) },
            maxClicks: try row.optionalInteger("max_clicks").map { Int($0) }, expiredLink: try row.optionalText("expired_link"))
    }
}

extension ShortLinkRecord {
    /// The record as an update writes it: `updatedAt` now, dates as the database gives them back.
    func forUpdate(at now: Date = Date()) -> ShortLinkRecord {
        var updated = self
        updated.updatedAt = StoreCoding.stored(now)
        updated.expiresAt = expiresAt.map(StoreCoding.stored)
        return updated
    }
}
