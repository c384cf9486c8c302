import GRDB

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// A prepared statement run row after row with its arguments bound by hand, in order, as GRDB binds them (text up
/// to its first NUL, copied; integers and doubles as such; nil as NULL). For batches: GRDB's `StatementArguments`,
/// an array of boxed values built, checked and freed for every row, was a large share of the writer's time
/// inserting a second's pending clicks (docs/performance.md#batched-writes-bound-by-hand-and-sorted).
struct SteppedStatement {
    private let statement: Statement
    private let handle: SQLiteStatement
    private let count: Int32
    private var position: Int32 = 0

    /// - Parameter statement: a statement of `db`, used only here until the batch ends (a cached one is fine).
    init(_ statement: Statement) {
        self.statement = statement
        handle = statement.sqliteStatement
        count = sqlite3_bind_parameter_count(handle)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private mutating func next() -> Int32 {
        position += 1
        return position
    }

    mutating func bind(_ value: String?) {
        let index = next()
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        value.withCString { _ = sqlite3_bind_text(handle, index, $0, -1, Self.transient) }
    }

    mutating func bind(_ value: Int64?) {
        let index = next()
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    mutating func bind(_ value: Int?) { bind(value.map(Int64.init)) }

    mutating func bind(_ value: Double) { sqlite3_bind_double(handle, next(), value) }

    /// Runs the statement with the values bound since the last run, then clears them for the next row.
    /// - Throws: `DatabaseError` as GRDB would throw it; `StoreError` when fewer or more values were bound than the
    ///   statement has parameters (a mistake here, not in the data).
    mutating func execute(in db: Database) throws {
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
            position = 0
        }
        guard position == count else {
            throw StoreError.unavailable("\(position) values bound to a statement of \(count) parameters: \(statement.sql)")
        }
        let result = sqlite3_step(handle)
        guard result == SQLITE_DONE || result == SQLITE_ROW else {
            throw DatabaseError(
                resultCode: ResultCode(rawValue: result), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
        }
    }

    /// SQLite's SQLITE_TRANSIENT (a C macro Swift cannot import): SQLite copies the value before the call returns.
    private static let transient = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)
}
