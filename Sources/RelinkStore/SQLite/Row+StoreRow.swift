import GRDB

extension Row: StoreRow {
    func text(_ column: String) throws -> String { try decode(forColumn: column) }
    func optionalText(_ column: String) throws -> String? { try decode(forColumn: column) }
    func integer(_ column: String) throws -> Int64 { try decode(forColumn: column) }
    func optionalInteger(_ column: String) throws -> Int64? { try decode(forColumn: column) }
    func bool(_ column: String) throws -> Bool { try decode(forColumn: column) }
    func double(_ column: String) throws -> Double { try decode(forColumn: column) }
    func optionalDouble(_ column: String) throws -> Double? { try decode(forColumn: column) }
}
