import ArgumentParser
import Foundation
import RelinkStore

/// Which database a command uses: `--db FILE` (SQLite), else $RELINK_DB, else ./relink.sqlite.
struct StoreOptions: ParsableArguments {
    @Option(name: .customLong("db"), help: "The SQLite database file (default: $RELINK_DB, else relink.sqlite).")
    var databaseFile: String?

    static let defaultFile = "relink.sqlite"

    var path: String {
        databaseFile ?? ProcessInfo.processInfo.environment["RELINK_DB"] ?? Self.defaultFile
    }

    func open() throws(CLIError) -> any RelinkStore {
        do {
            return try SQLiteStore(path: path)
        } catch {
            throw CLIError(message: "cannot open the database \(path): \(error)")
        }
    }
}
