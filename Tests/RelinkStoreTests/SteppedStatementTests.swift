import GRDB
import Testing

@testable import RelinkStore

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

@Suite("Rows bound by hand")
struct SteppedStatementTests {
    /// Text bound from the row's shared buffer reads back as bound, row after row: empty text stays text (not
    /// NULL), nil is NULL, a C string's end is the first NUL, and a longer value after a shorter one is whole.
    @Test func valuesReadBackAsBound() throws {
        let queue = try DatabaseQueue()
        let rows: [(String?, String?, Int64?, Double)] = [
            ("first", "", 1, 1.5), (nil, "second", nil, 2), ("", "", 3, 3), ("x\u{0}y", "日本語😀", 4, 4),
            (String(repeating: "long ", count: 400), "é", 5, 5), ("", nil, 6, 6),
        ]
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT, b TEXT, c INTEGER, d REAL)")
            var insert = SteppedStatement(try db.cachedStatement(sql: "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?)"))
            for row in rows {
                insert.bind(row.0)
                insert.bind(row.1)
                insert.bind(row.2)
                insert.bind(row.3)
                try insert.execute(in: db)
            }
            // Too few values is an error of ours, and leaves nothing bound for the next row.
            insert.bind("only one")
            #expect(throws: StoreError.self) { try insert.execute(in: db) }
        }
        let read = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT a, typeof(a) AS ta, b, typeof(b) AS tb, c, d FROM t ORDER BY rowid")
        }
        #expect(read.count == rows.count)
        for (row, stored) in zip(rows, read) {
            let a = row.0.map { String($0.prefix { $0 != "\u{0}" }) }
            #expect(stored["a"] as String? == a)
            #expect(stored["ta"] as String == (a == nil ? "null" : "text"))
            #expect(stored["b"] as String? == row.1)
            #expect(stored["tb"] as String == (row.1 == nil ? "null" : "text"))
            #expect(stored["c"] as Int64? == row.2)
            #expect(stored["d"] as Double == row.3)
        }
    }

    /// A failing row throws SQLite's own error and the next row still goes in.
    @Test func aFailingRowThrowsSQLitesError() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT PRIMARY KEY)")
            var insert = SteppedStatement(try db.cachedStatement(sql: "INSERT INTO t (a) VALUES (?)"))
            insert.bind("same")
            try insert.execute(in: db)
            insert.bind("same")
            #expect { try insert.execute(in: db) } throws: { ($0 as? DatabaseError)?.resultCode == .SQLITE_CONSTRAINT }
            insert.bind("other")
            try insert.execute(in: db)
        }
        #expect(try queue.read { try String.fetchAll($0, sql: "SELECT a FROM t ORDER BY a") } == ["other", "same"])
    }
    /// A value SQLite refuses to bind (longer than the connection's limit) throws SQLite's error instead of running
    /// the row without it, and the next row still goes in.
    @Test func aValueSQLiteRefusesToBindThrows() throws {
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (a TEXT, b TEXT)")
            sqlite3_limit(db.sqliteConnection, SQLITE_LIMIT_LENGTH, 16)
            var insert = SteppedStatement(try db.cachedStatement(sql: "INSERT INTO t (a, b) VALUES (?, ?)"))
            insert.bind("short")
            insert.bind(String(repeating: "x", count: 17))
            #expect { try insert.execute(in: db) } throws: { ($0 as? DatabaseError)?.resultCode == .SQLITE_TOOBIG }
            insert.bind("next")
            insert.bind("row")
            try insert.execute(in: db)
        }
        let stored = try queue.read { try Row.fetchAll($0, sql: "SELECT a, b FROM t") }
        #expect(stored.map { [$0["a"] as String, $0["b"] as String] } == [["next", "row"]])
    }
}
