import PostgresNIO

extension PostgresRandomAccessRow: StoreRow {
    func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }

    func text(_ column: String) throws -> String { try value(column) }
    func optionalText(_ column: String) throws -> String? { try value(column) }
    func integer(_ column: String) throws -> Int64 { try value(column) }
    func optionalInteger(_ column: String) throws -> Int64? { try value(column) }
    func bool(_ column: String) throws -> Bool { try value(column) }
    func double(_ column: String) throws -> Double { try value(column) }
    func optionalDouble(_ column: String) throws -> Double? { try value(column) }
}
