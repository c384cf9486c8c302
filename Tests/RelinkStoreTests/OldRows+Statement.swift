import GRDB
import PostgresNIO

extension OldRows {
    /// A row written by hand, in SQL both databases take: `?` placeholders, each value bound as its database keeps it.
    struct Statement: Sendable {
        var sql: String
        var values: [Value]

        /// Inserts one row; a column left out is NULL or its default.
        static func insert(_ table: String, _ columns: KeyValuePairs<String, Value>) -> Statement {
            Statement(
                sql:
                    "INSERT INTO \(table) (\(columns.map(\.key).joined(separator: ", "))) VALUES (\(columns.map(\.value.sql).joined(separator: ", ")))",
                values: columns.map(\.value))
        }

        /// Sets columns of the rows whose `column` is `value`.
        static func update(_ table: String, _ columns: KeyValuePairs<String, Value>, where column: String, is value: String) -> Statement {
            Statement(
                sql: "UPDATE \(table) SET \(columns.map { "\($0.key) = \($0.value.sql)" }.joined(separator: ", ")) WHERE \(column) = ?",
                values: columns.map(\.value) + [.text(value)])
        }

        var sqliteArguments: StatementArguments {
            StatementArguments(values.map(\.databaseValue))
        }

        /// PostgreSQL's numbered placeholders, in the order of the `?`s (no statement has one in a literal).
        var postgresQuery: PostgresQuery {
            var numbered = ""
            var count = 0
            for character in sql {
                if character == "?" {
                    count += 1
                    numbered += "$\(count)"
                } else {
                    numbered.append(character)
                }
            }
            var bindings = PostgresBindings()
            for value in values {
                switch value {
                case .text(let text), .idOf(_, _, let text): bindings.append(text)
                case .integer(let integer): bindings.append(integer)
                case .real(let real): bindings.append(real)
                case .bool(let bool): bindings.append(bool)
                }
            }
            return PostgresQuery(unsafeSQL: numbered, binds: bindings)
        }
    }

    /// A value of a hand-written row. A date is seconds since 1970, a flag a Bool (SQLite keeps it as 0 or 1).
    enum Value: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
        case text(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        /// The id of the row of `table` whose `column` is the text: how a row refers to another, whose id the
        /// database chose.
        case idOf(_ table: String, _ column: String, String)

        init(stringLiteral value: String) { self = .text(value) }
        init(integerLiteral value: Int64) { self = .integer(value) }
        init(floatLiteral value: Double) { self = .real(value) }
        init(booleanLiteral value: Bool) { self = .bool(value) }

        /// Its place in a statement.
        var sql: String {
            switch self {
            case .idOf(let table, let column, _): "(SELECT id FROM \(table) WHERE \(column) = ?)"
            default: "?"
            }
        }

        var databaseValue: DatabaseValue {
            switch self {
            case .text(let text), .idOf(_, _, let text): text.databaseValue
            case .integer(let integer): integer.databaseValue
            case .real(let real): real.databaseValue
            case .bool(let bool): (bool ? 1 : 0).databaseValue
            }
        }
    }
}
