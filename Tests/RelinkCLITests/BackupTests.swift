import AsyncHTTPClient
import Foundation
import GRDB
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import Testing

@testable import relink

/// `relink backup` of a SQLite store while `relink serve` takes clicks and mints: the copy passes SQLite's integrity
/// check, holds every link minted before the backup began, and no counter in it is lower than the store's when the
/// backup began.
@Suite("Backups", .serialized)
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
            let minted = NIOLockedValueBox<[String]>([])
            let port = server.port
            @Sendable func mint(_ index: Int) async throws {
                guard let path = try await CrashSafetyTests.mint(http: http, port: port, key: key, path: "backup/\(index)") else { return }
                minted.withLockedValue { $0.append(String(path.dropFirst())) }
            }
            for index in 0..<20 { try await mint(index) }
            // Clicks on the first links, and mints, while the backup runs.
            let load = CrashSafetyTests.Load()
            let clicking = Task { await load.run(http: http, port: port, paths: minted.withLockedValue { $0 }.map { "/\($0)" }, workers: 6) }
            let minting = Task {
                var index = 20
                while !load.stopped.withLockedValue({ $0 }) {
                    try? await mint(index)
                    index += 1
                }
            }
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
            load.stopped.withLockedValue { $0 = true }
            await clicking.value
            await minting.value
            await server.signal(SIGTERM)
            #expect(load.acknowledged > 0)
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
}
