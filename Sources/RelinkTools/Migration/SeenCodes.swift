import Foundation
import GRDB

/// The short links an import has seen, to find a code that appears twice in a file: kept in a temporary SQLite file
/// instead of memory, so an import's memory stays the same however many rows the file has (SQLite's page cache,
/// 2 MB by default, is all it holds).
final class SeenCodes {
    private let queue: DatabaseQueue
    private let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appending(path: "relink-import-\(UUID().uuidString).sqlite").path
        var configuration = Configuration()
        configuration.label = "relink.import.seen"
        // A scratch file: nothing needs to survive a crash.
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF")
        }
        queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.write { db in try db.execute(sql: "CREATE TABLE seen (key TEXT PRIMARY KEY) WITHOUT ROWID") }
    }

    deinit {
        try? queue.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Notes `domain` and `code`; false when they were noted before.
    func insert(domain: String, code: String) throws -> Bool {
        try queue.inDatabase { db in
            try db.execute(sql: "INSERT OR IGNORE INTO seen (key) VALUES (?)", arguments: [domain + "\t" + code])
            return db.changesCount == 1
        }
    }

    /// Forgets everything, for the next pass.
    func removeAll() throws {
        try queue.inDatabase { db in try db.execute(sql: "DELETE FROM seen") }
    }
}
