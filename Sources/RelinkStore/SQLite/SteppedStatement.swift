import GRDB

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// A prepared statement run row after row with its arguments bound by hand, in order, as GRDB binds them (text up
/// to its first NUL; integers and doubles as such; nil as NULL). For batches: GRDB's `StatementArguments`,
/// an array of boxed values built, checked and freed for every row, was a large share of the writer's time
/// inserting a second's pending clicks (docs/performance.md#batched-writes-bound-by-hand-and-sorted).
/// A row's text goes into one buffer kept for the whole batch and is bound from there without a copy: SQLite frees
/// and allocates a copied value's memory at every bind, a dozen allocations a pending click.
struct SteppedStatement {
    private let statement: Statement
    private let handle: SQLiteStatement
    private let count: Int32
    private var position: Int32 = 0
    /// The row's text values, one after the other.
    private var text: [UInt8] = []
    /// Where each text value of the row is in `text`, and its parameter.
    private var texts: [(parameter: Int32, offset: Int, length: Int)] = []

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
        let offset = text.count
        // Up to the first NUL, as a C string ends there.
        for byte in value.utf8 {
            if byte == 0 { break }
            text.append(byte)
        }
        texts.append((index, offset, text.count - offset))
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
            position = 0
            text.removeAll(keepingCapacity: true)
            texts.removeAll(keepingCapacity: true)
        }
        guard position == count else {
            sqlite3_clear_bindings(handle)
            throw StoreError.unavailable("\(position) values bound to a statement of \(count) parameters: \(statement.sql)")
        }
        let (result, message) = text.withUnsafeBufferPointer { buffer -> (Int32, String?) in
            defer {
                sqlite3_reset(handle)
                sqlite3_clear_bindings(handle)
            }
            for value in texts {
                // Static: the buffer is neither changed nor freed before the bindings are cleared below. An empty
                // value still needs an address (a null one binds NULL).
                let start = buffer.baseAddress.map { UnsafeRawPointer($0 + value.offset).assumingMemoryBound(to: CChar.self) } ?? Self.empty
                // A nil destructor is SQLITE_STATIC: SQLite reads the value where it is until the binding is cleared.
                // The 64-bit length leaves the size check to SQLite (SQLITE_TOOBIG past the connection's limit).
                let bound = sqlite3_bind_text64(handle, value.parameter, start, UInt64(value.length), nil, UInt8(SQLITE_UTF8))
                if bound != SQLITE_OK { return (bound, String(cString: sqlite3_errmsg(db.sqliteConnection))) }
            }
            let result = sqlite3_step(handle)
            let failed = result != SQLITE_DONE && result != SQLITE_ROW
            return (result, failed ? String(cString: sqlite3_errmsg(db.sqliteConnection)) : nil)
        }
        if let message {
            throw DatabaseError(resultCode: ResultCode(rawValue: result), message: message, sql: statement.sql)
        }
    }

    /// An empty text's address, for a row whose text is all empty (the buffer then has none).
    private static var empty: UnsafePointer<CChar> { UnsafeRawPointer(("" as StaticString).utf8Start).assumingMemoryBound(to: CChar.self) }
}
