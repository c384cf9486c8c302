import Foundation
import GRDB

extension SQLiteStore {
    /// Copies the database to a new file at `path` with SQLite's online backup, from one read snapshot: consistent,
    /// while the server goes on serving and writing (WAL: readers and the writer do not wait for each other). The copy
    /// is checked (`integrity_check`) before it is moved into place, so `path` never holds a partial copy.
    /// - Returns: the number of links in the copy.
    public func backup(to path: String) async throws -> Int {
        let partial = path + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            let destination = try DatabaseQueue(path: partial)
            try writer.backup(to: destination)
            let (check, links) = try await destination.read { db in
                (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM links") ?? 0)
            }
            // One file to carry: the copy's own WAL folded in.
            try await destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try destination.close()
            guard check == ["ok"] else { throw StoreError.unavailable("the copy failed SQLite's integrity check: \(check.prefix(3))") }
            try FileManager.default.moveItem(atPath: partial, toPath: path)
            return links
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
            throw error
        }
    }
}
