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
        // Early, before the copy; the copy is put in place so that it never replaces a file anyway.
        if (try? FileManager.default.attributesOfItem(atPath: out)) != nil {
            throw CLIError(message: "\(out) exists; give a new file (a backup never overwrites one)")
        }
        if Self.isCompanion(out, of: path) {
            throw CLIError(message: "\(out) is one of the database's own files (SQLite would take a copy there for its own); give another")
        }
        let started = Date()
        let links: Int
        do {
            links = try await SQLiteStore.backup(databaseAt: path, to: out)
        } catch {
            throw CLIError(message: "backup of \(path) failed: \(error)")
        }
        let size = ((try? FileManager.default.attributesOfItem(atPath: out)[.size]) as? Int) ?? 0
        Console.print(
            "backed up \(path) to \(out): \(links) link\(links == 1 ? "" : "s"), \(size / 1_048_576) MB, in \(String(format: "%.1f", Date().timeIntervalSince(started))) s"
        )
    }

    /// Whether `out` names the database's -wal, -shm or -journal file, in any spelling: one SQLite would read as the
    /// database's own when it next opens it, and overwrite.
    static func isCompanion(_ out: String, of database: String) -> Bool {
        let target = URL(fileURLWithPath: out)
        let resolved = target.deletingLastPathComponent().resolvingSymlinksInPath().appending(path: target.lastPathComponent).path
        let base = URL(fileURLWithPath: database).resolvingSymlinksInPath().path
        return ["-wal", "-shm", "-journal"].contains { resolved == base + $0 }
    }
}
