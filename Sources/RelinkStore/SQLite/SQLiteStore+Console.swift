import Foundation
import GRDB
import RelinkCore

// MARK: - Statistics by day

extension SQLiteStore {
    /// The FROM and WHERE of a counters table for `scope`, and its arguments.
    static func scoped(_ table: String, _ scope: StatsScope, fromDay: Int, toDay: Int) -> (sql: String, arguments: StatementArguments) {
        switch scope {
        case .link(let id):
            ("FROM \(table) c WHERE c.link_id = ? AND c.day BETWEEN ? AND ?", [id, fromDay, toDay])
        case .project(let id):
            (
                "FROM \(table) c JOIN links l ON l.id = c.link_id WHERE l.project_id = ? AND c.day BETWEEN ? AND ?",
                [id, fromDay, toDay]
            )
        }
    }

    public func dailyEventCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [DailyEventCount] {
        let (from, arguments) = Self.scoped("event_counters", scope, fromDay: fromDay, toDay: toDay)
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.day AS day, c.platform AS platform, c.event AS event, SUM(c.count) AS total \(from)
                    GROUP BY c.day, c.platform, c.event HAVING total > 0 ORDER BY c.day, c.platform, c.event
                    """,
                arguments: arguments
            ).compactMap { row in
                guard let platform = StatsPlatform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else {
                    return nil
                }
                return DailyEventCount(day: row["day"], platform: platform, event: event, count: row["total"])
            }
        }
    }

    public func confidenceCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [ConfidenceCount] {
        let (from, arguments) = Self.scoped("confidence_counters", scope, fromDay: fromDay, toDay: toDay)
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT c.day AS day, c.confidence AS confidence, SUM(c.count) AS total \(from)
                    GROUP BY c.day, c.confidence HAVING total > 0 ORDER BY c.day, c.confidence
                    """,
                arguments: arguments
            ).compactMap { row in
                guard let confidence = AttributionConfidence(rawValue: row["confidence"]) else { return nil }
                return ConfidenceCount(day: row["day"], confidence: confidence, count: row["total"])
            }
        }
    }

    public func clickCounts(linkIds: [Int64], fromDay: Int) async throws -> [Int64: Int64] {
        guard !linkIds.isEmpty else { return [:] }
        return try await read { db in
            var arguments = StatementArguments(linkIds)
            arguments += [fromDay]
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT link_id, SUM(count) AS total FROM event_counters
                    WHERE link_id IN (\(Array(repeating: "?", count: linkIds.count).joined(separator: ", "))) AND day >= ?
                        AND event = 'CLICK' AND platform != 'CRAWLER'
                    GROUP BY link_id
                    """,
                arguments: arguments)
            return Dictionary(uniqueKeysWithValues: rows.map { (row: Row) -> (Int64, Int64) in (row["link_id"], row["total"]) })
        }
    }
}

// MARK: - Console sessions

extension SQLiteStore {
    public func saveConsoleSession(_ session: ConsoleSessionRecord, maximumPerKey: Int) async throws {
        let now = Date().timeIntervalSince1970
        try await write { db in
            try db.execute(sql: "DELETE FROM console_sessions WHERE expires_at <= ?", arguments: [now])
            try db.execute(
                sql: """
                    INSERT INTO console_sessions (id_hash, key_id, data, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at
                    """,
                arguments: [session.idHash, session.keyId, session.data, now, session.expiresAt.timeIntervalSince1970])
            try db.execute(
                sql: """
                    DELETE FROM console_sessions WHERE key_id = ? AND id_hash NOT IN (
                        SELECT id_hash FROM console_sessions WHERE key_id = ? ORDER BY created_at DESC, id_hash LIMIT ?)
                    """,
                arguments: [session.keyId, session.keyId, max(1, maximumPerKey)])
        }
    }

    public func consoleSession(idHash: String, now: Date) async throws -> ConsoleSessionRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT id_hash, key_id, data, expires_at FROM console_sessions WHERE id_hash = ? AND expires_at > ?",
                arguments: [idHash, now.timeIntervalSince1970]
            ).map { row in
                ConsoleSessionRecord(
                    idHash: row["id_hash"], keyId: row["key_id"], data: row["data"],
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"]))
            }
        }
    }

    public func removeConsoleSession(idHash: String) async throws {
        try await write { db in try db.execute(sql: "DELETE FROM console_sessions WHERE id_hash = ?", arguments: [idHash]) }
    }
}
