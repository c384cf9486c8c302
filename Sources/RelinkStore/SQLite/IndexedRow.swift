import Foundation
import GRDB

/// A row of a statement whose columns are known in advance, read by position: GRDB's lookup by name lowercases the
/// name and compares it with every column's, and its optional decoding goes through generic metadata, which made
/// reading a link row cost more than finding it (a cache miss).
struct IndexedRow: StoreRow {
    /// Column positions by name, made once per statement text (`IndexedRow.positions(of:)`).
    typealias Positions = [String: Int]

    let row: Row
    let positions: Positions

    /// The positions of a comma-separated column list, as `SELECT` names them.
    static func positions(of columns: String) -> Positions {
        let names = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        return Dictionary(uniqueKeysWithValues: names.enumerated().map { ($1, $0) })
    }

    private func position(_ column: String) throws -> Int {
        guard let position = positions[column] else { throw StoreError.unavailable("the query reads no column \(column)") }
        return position
    }

    func text(_ column: String) throws -> String { try row.decode(String.self, atIndex: position(column)) }
    func integer(_ column: String) throws -> Int64 { try row.decode(Int64.self, atIndex: position(column)) }
    func bool(_ column: String) throws -> Bool { try row.decode(Bool.self, atIndex: position(column)) }
    func double(_ column: String) throws -> Double { try row.decode(Double.self, atIndex: position(column)) }

    func optionalText(_ column: String) throws -> String? {
        let position = try position(column)
        return row.hasNull(atIndex: position) ? nil : try row.decode(String.self, atIndex: position)
    }

    func optionalInteger(_ column: String) throws -> Int64? {
        let position = try position(column)
        return row.hasNull(atIndex: position) ? nil : try row.decode(Int64.self, atIndex: position)
    }

    func optionalDouble(_ column: String) throws -> Double? {
        let position = try position(column)
        return row.hasNull(atIndex: position) ? nil : try row.decode(Double.self, atIndex: position)
    }
}
