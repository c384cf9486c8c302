import PostgresNIO

/// The PostgreSQL error codes (SQLSTATE) Relink acts on, by name.
enum SQLState: String {
    /// A unique constraint refused a row: a taken code or idempotency key, a migration another instance ran.
    case uniqueViolation = "23505"
    /// `CREATE SCHEMA` raced another instance creating it.
    case duplicateSchema = "42P06"

    /// The code of a server error, when `error` is one.
    init?(_ error: any Error) {
        guard let code = (error as? PSQLError)?.serverInfo?[.sqlState] else { return nil }
        self.init(rawValue: code)
    }
}
