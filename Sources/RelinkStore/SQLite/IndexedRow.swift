import Foundation
import GRDB

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

/// The current row of a statement stepped by hand, its columns known in advance and read by position, as GRDB reads
/// them (text up to a NUL, SQLite's conversions between types). A cache miss read its link through GRDB's `Row`,
/// which for each lookup lowercased every column's name into a table, and whose lookup by name lowercased and
/// compared again, on every miss (docs/performance.md#missed-rows-read-by-position).
struct IndexedRow: StoreRow {
    /// Column positions by name, made once per statement text (`IndexedRow.positions(of:)`).
    typealias Positions = [String: Int]

    let statement: SQLiteStatement
    let positions: Positions

    /// The positions of a comma-separated column list, as `SELECT` names them.
    static func positions(of columns: String) -> Positions {
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    }

    private func position(_ column: String) throws -> Int32 {
        guard let position = positions[column] else { throw StoreError.unavailable("the query reads no column \(column)") }
        return Int32(position)
    }

    private func present(_ column: String) throws -> Int32 {
        let position = try position(column)
        guard !isNull(position) else { throw StoreError.unavailable("the stored column \(column) is NULL") }
        return position
    }

    /// Steps `statement` (prepared with `arguments`, stepped by hand) to its next row: false when it is done.
    static func step(_ statement: Statement, arguments: StatementArguments, in db: Database) throws -> Bool {
        switch sqlite3_step(statement.sqliteStatement) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let result:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: result), message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql,
                arguments: arguments)
        }
    }

    func isNull(_ position: Int32) -> Bool { sqlite3_column_type(statement, position) == SQLITE_NULL }

    /// The text at `position`, nil for NULL.
    func text(at position: Int32) -> String? {
        guard !isNull(position), let text = sqlite3_column_text(statement, position) else { return nil }
        return String(cString: text)
    }

    /// The integer at `position`, nil for NULL.
    func integer(at position: Int32) -> Int64? {
        isNull(position) ? nil : sqlite3_column_int64(statement, position)
    }

    func text(_ column: String) throws -> String {
        let position = try present(column)
        guard let text = sqlite3_column_text(statement, position) else { throw StoreError.unavailable("cannot read the stored column \(column)") }
        return String(cString: text)
    }

    func integer(_ column: String) throws -> Int64 { sqlite3_column_int64(statement, try present(column)) }
    func bool(_ column: String) throws -> Bool { sqlite3_column_int64(statement, try present(column)) != 0 }
    func double(_ column: String) throws -> Double { sqlite3_column_double(statement, try present(column)) }
    func optionalText(_ column: String) throws -> String? { text(at: try position(column)) }
    func optionalInteger(_ column: String) throws -> Int64? { integer(at: try position(column)) }

    func optionalDouble(_ column: String) throws -> Double? {
        let position = try position(column)
        return isNull(position) ? nil : sqlite3_column_double(statement, position)
    }
}
