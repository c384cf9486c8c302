import ArgumentParser
import Foundation
import RelinkStore

/// `relink backup --out FILE`: a consistent copy of the SQLite store, taken while the server serves.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database to a file, consistently, while relink serve goes on (PostgreSQL: pg_dump).",
        discussion: "Restore by stopping the server and putting the copy in the database's place (docs/operations.md#backups).")

    @OptionGroup var store: StoreOptions

    @Option(help: "Where the copy goes: a new file (an existing one is refused).")
    var out: String

    func run() async throws {
        guard case .sqlite(let path) = try store.choice() else {
            throw CLIError.usage(
                "relink backup copies a SQLite database; back up PostgreSQL with pg_dump (docs/operations.md#backups)")
        }
        guard FileManager.default.fileExists(atPath: path) else { throw CLIError(message: "no database at \(path)") }
        guard !FileManager.default.fileExists(atPath: out) else {
            throw CLIError(message: "\(out) exists; give a new file (a backup never overwrites one)")
        }
        let database = try SQLiteStore(path: path)
        defer { database.close() }
        let started = Date()
        let links: Int
        do {
            links = try await database.backup(to: out)
        } catch {
            throw CLIError(message: "backup of \(path) failed: \(error)")
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: out)[.size]) as? Int) ?? 0
        Console.print(
            "backed up \(path) to \(out): \(links) link\(links == 1 ? "" : "s"), \(size / 1_048_576) MB, in \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
    }
}
