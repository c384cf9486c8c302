import Foundation
import PostgresNIO
import RelinkCore

// MARK: - Statistics by day

extension PostgresStore {
    public func dailyEventCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [DailyEventCount] {
        let query: PostgresQuery
        switch scope {
        case .link(let id):
            query = """
                SELECT day::BIGINT AS day, platform, event, SUM(count)::BIGINT AS total FROM event_counters
                WHERE link_id = \(id) AND day BETWEEN \(Int64(fromDay)) AND \(Int64(toDay))
                GROUP BY day, platform, event HAVING SUM(count) > 0 ORDER BY day, platform COLLATE "C", event COLLATE "C"
                """
        case .project(let id):
            query = """
                SELECT c.day::BIGINT AS day, c.platform AS platform, c.event AS event, SUM(c.count)::BIGINT AS total
                FROM event_counters c JOIN links l ON l.id = c.link_id
                WHERE l.project_id = \(id) AND c.day BETWEEN \(Int64(fromDay)) AND \(Int64(toDay))
                GROUP BY c.day, c.platform, c.event HAVING SUM(c.count) > 0 ORDER BY c.day, c.platform COLLATE "C", c.event COLLATE "C"
                """
        }
        return try await rows(query).compactMap { row in
            guard let platform = StatsPlatform(rawValue: try row.value("platform")), let event = LinkEvent(rawValue: try row.value("event"))
            else { return nil }
            return DailyEventCount(day: Int(try row.value("day", as: Int64.self)), platform: platform, event: event, count: try row.value("total"))
        }
    }

    public func confidenceCounts(_ scope: StatsScope, fromDay: Int, toDay: Int) async throws -> [ConfidenceCount] {
        let query: PostgresQuery
        switch scope {
        case .link(let id):
            query = """
                SELECT day::BIGINT AS day, confidence, SUM(count)::BIGINT AS total FROM confidence_counters
                WHERE link_id = \(id) AND day BETWEEN \(Int64(fromDay)) AND \(Int64(toDay))
                GROUP BY day, confidence HAVING SUM(count) > 0 ORDER BY day, confidence COLLATE "C"
                """
        case .project(let id):
            query = """
                SELECT c.day::BIGINT AS day, c.confidence AS confidence, SUM(c.count)::BIGINT AS total
                FROM confidence_counters c JOIN links l ON l.id = c.link_id
                WHERE l.project_id = \(id) AND c.day BETWEEN \(Int64(fromDay)) AND \(Int64(toDay))
                GROUP BY c.day, c.confidence HAVING SUM(c.count) > 0 ORDER BY c.day, c.confidence COLLATE "C"
                """
        }
        return try await rows(query).compactMap { row in
            guard let confidence = AttributionConfidence(rawValue: try row.value("confidence")) else { return nil }
            return ConfidenceCount(day: Int(try row.value("day", as: Int64.self)), confidence: confidence, count: try row.value("total"))
        }
    }

    public func clickCounts(linkIds: [Int64], fromDay: Int) async throws -> [Int64: Int64] {
        guard !linkIds.isEmpty else { return [:] }
        let rows = try await rows(
            """
            SELECT link_id, SUM(count)::BIGINT AS total FROM event_counters
            WHERE link_id = ANY(\(linkIds)) AND day >= \(Int64(fromDay)) AND event = 'CLICK' AND platform <> 'CRAWLER'
            GROUP BY link_id
            """)
        var counts: [Int64: Int64] = [:]
        for row in rows { counts[try row.value("link_id")] = try row.value("total") }
        return counts
    }
}

// MARK: - Console sessions

extension PostgresStore {
    public func saveConsoleSession(_ session: ConsoleSessionRecord, maximumPerKey: Int) async throws {
        let now = Date().timeIntervalSince1970
        try await transaction { connection in
            for query: PostgresQuery in [
                "DELETE FROM console_sessions WHERE expires_at <= \(now)",
                """
                INSERT INTO console_sessions (id_hash, key_id, data, created_at, expires_at)
                VALUES (\(session.idHash), \(session.keyId), \(session.data), \(now), \(session.expiresAt.timeIntervalSince1970))
                ON CONFLICT (id_hash) DO UPDATE SET data = excluded.data, expires_at = excluded.expires_at
                """,
                """
                DELETE FROM console_sessions WHERE key_id = \(session.keyId) AND id_hash NOT IN (
                    SELECT id_hash FROM console_sessions WHERE key_id = \(session.keyId)
                    ORDER BY created_at DESC, id_hash LIMIT \(Int64(max(1, maximumPerKey))))
                """,
            ] {
                for try await _ in try await connection.query(query, logger: self.logger) {}
            }
        }
    }

    public func consoleSession(idHash: String, now: Date) async throws -> ConsoleSessionRecord? {
        try await rows(
            """
            SELECT id_hash, key_id, data, expires_at FROM console_sessions
            WHERE id_hash = \(idHash) AND expires_at > \(now.timeIntervalSince1970)
            """
        ).first.map { row in
            ConsoleSessionRecord(
                idHash: try row.value("id_hash"), keyId: try row.value("key_id"), data: try row.value("data"),
                expiresAt: Date(timeIntervalSince1970: try row.value("expires_at")))
        }
    }

    public func removeConsoleSession(idHash: String) async throws {
        try await rows("DELETE FROM console_sessions WHERE id_hash = \(idHash)")
    }
}
