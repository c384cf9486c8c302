import Foundation

/// A result row as either store's driver gives it: all the shared record mappings (`ShortLinkRecord(row:)`, …)
/// need from a store. Dates are stored as seconds since 1970 (a double) in both databases.
protocol StoreRow {
    func text(_ column: String) throws -> String
    func optionalText(_ column: String) throws -> String?
    func integer(_ column: String) throws -> Int64
    func optionalInteger(_ column: String) throws -> Int64?
    func bool(_ column: String) throws -> Bool
    func double(_ column: String) throws -> Double
    func optionalDouble(_ column: String) throws -> Double?
}

extension StoreRow {
    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: try double(column))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try optionalDouble(column).map(Date.init(timeIntervalSince1970:))
    }
}
