import ArgumentParser
import Foundation
import Logging
import RelinkStore

/// Which database a command uses: `--database postgres://…` (PostgreSQL, shared by several instances) or
/// `--db FILE` (SQLite); else $RELINK_DATABASE_URL, else $RELINK_DB, else ./relink.sqlite.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "The SQLite database file (default: $RELINK_DB, else relink.sqlite).")
    var databaseFile: String?

    @Option(
        name: .customLong("database"),
        help:
            "A PostgreSQL URL, postgres://user:password@host:5432/database[?sslmode=disable|prefer|require|verify-ca|verify-full&sslrootcert=PATH|system&sslcert=PATH&sslkey=PATH&schema=…&pool_max_conns=N&wait_timeout=SECONDS], for several instances (default: $RELINK_DATABASE_URL). See docs/deployment.md."
    )
    var databaseURL: String?

    static let defaultFile = "relink.sqlite"

    enum Choice {
        case sqlite(String)
        case postgres(String)
    }

    func choice() throws(CLIError) -> Choice {
        let environment = ProcessInfo.processInfo.environment
        if databaseURL != nil, databaseFile != nil {
            throw CLIError.usage("give either --database (PostgreSQL) or --db (SQLite), not both")
        }
        if let databaseURL { return .postgres(databaseURL) }
        if let databaseFile { return .sqlite(databaseFile) }
        if let url = environment["RELINK_DATABASE_URL"], !url.isEmpty { return .postgres(url) }
        return .sqlite(environment["RELINK_DB"].flatMap { $0.isEmpty ? nil : $0 } ?? Self.defaultFile)
    }

    /// Where the data is, for messages (a PostgreSQL URL without its password).
    var path: String {
        switch try? choice() {
        case .sqlite(let path): path
        case .postgres(let text): (try? DatabaseURL(text))?.description ?? "the PostgreSQL database"
        case nil: "the database"
        }
    }

    /// Opens the store, migrated to this version.
    /// - Parameters:
    ///   - creating: whether a SQLite file that does not exist is created (serve, keys create, an import); a command
    ///     that only reads or manages what is there says there is no database instead, so a mistyped `--db` does
    ///     not leave an empty database behind.
    func open(logLevel: Logger.Level = .warning, creating: Bool) async throws(CLIError) -> any RelinkStore {
        switch try choice() {
        case .sqlite(let path):
            if !creating, !FileManager.default.fileExists(atPath: path) { throw CLIError(message: "no database at \(path)") }
            do {
                return try SQLiteStore(path: path)
            } catch {
                throw CLIError(message: "cannot open the database \(path): \(error)")
            }
        case .postgres(let text):
            do {
                var logger = Logger(label: "relink.postgres")
                logger.logLevel = logLevel
                return try await PostgresStore.connect(try DatabaseURL(text), logger: logger)
            } catch {
                throw CLIError(message: "\(error)")
            }
        }
    }

    /// Lets go of a store's connections (PostgreSQL); SQLite closes with the last reference.
    static func close(_ store: any RelinkStore) {
        store.close()
    }
}
