import Foundation

extension APIKeyRecord {
    /// The `api_keys` columns a record is read from, in both stores.
    static let columns = "id, project_id, name, key_hash, key_prefix, created_at, revoked_at, scope"

    init(row: some StoreRow) throws {
        self.init(
            id: try row.integer("id"), projectId: try row.text("project_id"), name: try row.optionalText("name"),
            keyHash: try row.text("key_hash"), keyPrefix: try row.text("key_prefix"), createdAt: try row.date("created_at"),
            revokedAt: try row.optionalDate("revoked_at"),
            scope: APIKeyScope(rawValue: try row.text("scope")) ?? .console)
    }
}
