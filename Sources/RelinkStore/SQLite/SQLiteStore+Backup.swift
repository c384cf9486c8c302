import Foundation
import GRDB
import Glibc

extension SQLiteStore {
    /// Copies the Relink database at `source` to a new file at `path` with SQLite's online backup, from one read
    /// snapshot: consistent, while the server goes on serving and writing (WAL: readers and the writer do not wait for
    /// each other). The source is opened read-only and not migrated: a backup taken before an upgrade keeps the schema
    /// to go back to, and a file that is not Relink's is refused, not changed. The copy is made 0600 (it holds key
    /// hashes and click data), checked (`integrity_check`) and only then linked to `path`, which is never replaced,
    /// whatever it is (a file, a symlink, dangling or not): `path` never holds a partial copy, and nothing is left
    /// beside it when the backup fails.
    /// - Returns: the number of links in the copy.
    public static func backup(databaseAt source: String, to path: String) async throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(Self.busyTimeout)
        let database: DatabaseQueue
        do {
            database = try DatabaseQueue(path: source, configuration: configuration)
        } catch {
            throw StoreError.unavailable("cannot open \(source): \(error)")
        }
        defer { try? database.close() }
        let first = migrator.migrations.first ?? ""
        let isRelink: Bool
        do {
            isRelink = try await database.read { db in
                try db.tableExists("grdb_migrations")
                    && Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM grdb_migrations WHERE identifier = ?)", arguments: [first]) == true
            }
        } catch {
            throw StoreError.unavailable("cannot read \(source) as a SQLite database: \(error)")
        }
        guard isRelink else { throw StoreError.unavailable("\(source) is not a Relink database (no migration '\(first)' in it)") }
        return try await copy(database, to: path)
    }

    private static func copy(_ source: some DatabaseReader, to path: String) async throws -> Int {
        let partial = path + ".partial-" + String(UInt64.random(in: .min ... .max), radix: 16)
        // Made here: new (never an existing file, nor through a symlink) and for this user only; SQLite keeps the mode.
        let descriptor = open(partial, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw StoreError.unavailable("cannot create \(partial): \(String(cString: strerror(errno)))") }
        _ = Glibc.close(descriptor)
        do {
            let destination = try DatabaseQueue(path: partial)
            do {
                try source.backup(to: destination)
                let (check, links) = try await destination.read { db in
                    (try String.fetchAll(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM links") ?? 0)
                }
                // One file to carry: the copy's own WAL folded in.
                try await destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
                try destination.close()
                guard check == ["ok"] else {
                    // One line: SQLite lists every damaged page (thousands of lines for a damaged file).
                    let problems = check.flatMap { $0.split(separator: "\n") }.filter { !$0.hasPrefix("*** ") }
                    throw StoreError.unavailable(
                        "the copy failed SQLite's integrity check, the database is damaged (\(problems.count) problem\(problems.count == 1 ? "" : "s"), the first: \(problems.first ?? "?"))"
                    )
                }
                try place(partial, at: path)
                return links
            } catch {
                try? destination.close()
                throw error
            }
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(partial + suffix) }
            // SQLite's own message for it, from the backup, is "not an error".
            if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL {
                throw StoreError.unavailable("no room for the copy at \(path): the disk is full")
            }
            throw error
        }
    }

    /// Gives the finished copy its name, refusing any file already there (a hard link fails on an existing name; a
    /// rename would replace it).
    private static func place(_ partial: String, at path: String) throws {
        guard Glibc.link(partial, path) != 0 else {
            unlink(partial)
            return
        }
        let failure = errno
        switch failure {
        case EEXIST:
            throw StoreError.unavailable("\(path) exists; give a new file (a backup never overwrites one)")
        case EPERM, EOPNOTSUPP, ENOSYS:
            // A file system without hard links: a rename, after making sure nothing is there.
            var status = stat()
            guard lstat(path, &status) != 0, errno == ENOENT else {
                throw StoreError.unavailable("\(path) exists; give a new file (a backup never overwrites one)")
            }
            guard rename(partial, path) == 0 else {
                throw StoreError.unavailable("cannot name the copy \(path): \(String(cString: strerror(errno)))")
            }
        default:
            throw StoreError.unavailable("cannot name the copy \(path): \(String(cString: strerror(failure)))")
        }
    }
}
