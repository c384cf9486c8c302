import AsyncHTTPClient
import Foundation
import GRDB
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkStore
@testable import relink

/// `relink backup` of a SQLite store while `relink serve` takes clicks and mints: the copy passes SQLite's integrity
/// check, holds every link minted before the backup began, and no counter in it is lower than the store's when the
/// backup began.
@Suite("Backups", .serialized, .loadsTheMachine)
struct BackupTests {
    @Test func aBackupUnderLoadRestoresEverythingWrittenBeforeIt() async throws {
        let executable = try #require(CrashSafetyTests.executable, "relink is not built beside the tests")
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-backup-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "relink.sqlite").path
        let backup = folder.appending(path: "backup.sqlite").path
        let storeArguments = ["--db", path]
        let key = try #require(
            try await EndToEndTests.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes] + storeArguments).first)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            let server = try await CrashSafetyTests.Server(
                executable: executable, storeArguments: storeArguments, log: folder.appending(path: "serve.log"))
            // Clicks on the first links, and mints, while the copy is taken.
            let load = try await MintingLoad.start(http: http, port: server.port, key: key, pathPrefix: "backup")
            let minted = load.minted
            try await Task.sleep(for: .seconds(3))

            // What the store holds when the backup begins: the links minted so far and their stored clicks.
            let before = minted.withLockedValue { $0 }
            let live = try SQLiteStore(path: path)
            var links: [ShortLinkRecord] = []
            for code in before { links.append(try #require(try await live.link(domain: "https://go.pictlink.com", code: code))) }
            let clicksBefore = try await CrashSafetyTests.storedClicks(links, in: live)
            live.close()
            let output = try await EndToEndTests.run(["backup", "--db", path, "--out", backup])
            #expect(output.first?.hasPrefix("backed up \(path) to \(backup)") == true, "\(output)")
            try await Task.sleep(for: .seconds(1))
            await load.stop()
            await server.signal(SIGTERM)
            #expect(load.clicks.acknowledged > 0)
            #expect(minted.withLockedValue { $0.count } > before.count, "no link was minted while the backup ran")

            // The copy: one consistent file, every link minted before it began, no counter lower than then.
            let queue = try DatabaseQueue(path: backup)
            #expect(try await queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") } == ["ok"])
            try queue.close()
            let restored = try SQLiteStore(path: backup)
            var restoredLinks: [ShortLinkRecord] = []
            for code in before {
                let link = try await restored.link(domain: "https://go.pictlink.com", code: code)
                #expect(link != nil, "\(code), minted before the backup, is not in it")
                if let link { restoredLinks.append(link) }
            }
            let clicksInBackup = try await CrashSafetyTests.storedClicks(restoredLinks, in: restored)
            restored.close()
            #expect(clicksInBackup >= clicksBefore, "the backup holds \(clicksInBackup) clicks, the store held \(clicksBefore) when it began")
            print("backup under load: \(before.count) links before it, \(clicksBefore) clicks stored then, \(clicksInBackup) in the copy")

            // A second backup to the same file is refused, not overwritten.
            await #expect(throws: CLIError.self) { try await EndToEndTests.run(["backup", "--db", path, "--out", backup]) }
        } catch {
            try await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// A folder of its own for a test, and a Relink database in it.
    static func database() throws -> (folder: URL, path: String) {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-backup-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appending(path: "relink.sqlite").path
        try SQLiteStore(path: path).close()
        return (folder, path)
    }

    /// The names in `folder`, sorted.
    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test func theCopyIsForItsOwnerAlone() async throws {
        let (folder, path) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        let backup = folder.appending(path: "backup.sqlite").path
        let previous = umask(0o022)
        defer { umask(previous) }
        _ = try await EndToEndTests.run(["backup", "--db", path, "--out", backup])
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600, "the backup's mode is \(String(mode & 0o777, radix: 8))")
    }

    @Test func whatIsAtTheOutputIsNeverReplacedNorFollowed() async throws {
        let (folder, path) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        let victim = folder.appending(path: "victim").path
        try FileManager.default.createSymbolicLink(atPath: folder.appending(path: "dangling").path, withDestinationPath: victim)
        try FileManager.default.createDirectory(at: folder.appending(path: "folder"), withIntermediateDirectories: false)
        let before = try Self.names(in: folder)
        for out in [
            "dangling", "folder", "relink.sqlite", "./relink.sqlite", "folder/../relink.sqlite", "relink.sqlite-wal", "relink.sqlite-journal",
        ] {
            let error = await #expect(throws: CLIError.self) {
                try await EndToEndTests.run(["backup", "--db", path, "--out", folder.appending(path: out).path])
            }
            #expect(error?.message.contains("\n") == false)
        }
        #expect(!FileManager.default.fileExists(atPath: victim), "the backup followed a symlink")
        #expect(try Self.names(in: folder).filter { !$0.hasPrefix("relink.sqlite-") } == before.filter { !$0.hasPrefix("relink.sqlite-") })
        // In a folder that does not exist: one line, nothing made.
        let error = await #expect(throws: CLIError.self) {
            try await EndToEndTests.run(["backup", "--db", path, "--out", folder.appending(path: "missing/backup.sqlite").path])
        }
        #expect(error?.message.contains("\n") == false)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "missing").path))
    }

    /// The source is read, never written: an older schema stays as it was (the backup before an upgrade is the way
    /// back), and a file that is not Relink's database is refused untouched.
    @Test func theSourceIsNeitherMigratedNorChanged() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-backup-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let old = folder.appending(path: "old.sqlite").path
        let first = try #require(SQLiteStore.migrator.migrations.first)
        let queue = try DatabaseQueue(path: old)
        try SQLiteStore.migrate(queue, upTo: first)
        try queue.close()
        let backup = folder.appending(path: "old-backup.sqlite").path
        _ = try await EndToEndTests.run(["backup", "--db", old, "--out", backup])
        for file in [old, backup] {
            let copy = try DatabaseQueue(path: file)
            #expect(try await copy.read { db in try SQLiteStore.migrator.appliedIdentifiers(db) } == [first], "\(file)")
            try copy.close()
        }

        let other = folder.appending(path: "other.sqlite").path
        let otherQueue = try DatabaseQueue(path: other)
        try await otherQueue.write { db in try db.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')") }
        try otherQueue.close()
        let text = folder.appending(path: "notes.txt").path
        try Data("not a database\n".utf8).write(to: URL(fileURLWithPath: text))
        let contents = try [other, text].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let before = try Self.names(in: folder)
        for source in [other, text] {
            let error = await #expect(throws: CLIError.self) {
                try await EndToEndTests.run(["backup", "--db", source, "--out", folder.appending(path: "refused.sqlite").path])
            }
            #expect(error?.message.contains("\n") == false)
        }
        #expect(try [other, text].map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == contents)
        #expect(try Self.names(in: folder).filter { !$0.hasPrefix("other.sqlite-") } == before, "a file was left behind")
    }

    /// A damaged database: one short line, no copy.
    @Test func aDamagedDatabaseIsReportedInOneLine() async throws {
        let (folder, path) = try Self.database()
        defer { try? FileManager.default.removeItem(at: folder) }
        // Every page past the migrations' table (pages 2 and 3) claims a free block past its end.
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: path))
        let pages = try file.seekToEnd() / 4_096
        for page in 4...pages {
            try file.seek(toOffset: (page - 1) * 4_096 + 1)
            try file.write(contentsOf: Data([0x0F, 0xA0]))
        }
        try file.close()
        let before = try Self.names(in: folder)
        let error = await #expect(throws: CLIError.self) {
            try await EndToEndTests.run(["backup", "--db", path, "--out", folder.appending(path: "backup.sqlite").path])
        }
        let message = error?.message ?? ""
        #expect(message.contains("integrity check"), "\(message)")
        #expect(!message.contains("\n") && !message.contains("\\n") && message.count < 400, "\(message)")
        #expect(try Self.names(in: folder).filter { !$0.hasPrefix("relink.sqlite-") } == before.filter { !$0.hasPrefix("relink.sqlite-") })
    }
}
