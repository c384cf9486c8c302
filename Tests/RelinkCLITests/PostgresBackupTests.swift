import AsyncHTTPClient
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkStore
@testable import relink

/// docs/operations.md#backups for PostgreSQL, run as written: `pg_dump --format=custom` of Relink's schema while it
/// is in use, the schema dropped, `pg_restore` into the empty database: every link, counter and webhook is back,
/// the migrations are not applied again, and a link deleted by hand still takes its counters (the triggers came back).
@Suite("PostgreSQL backups", .loadsTheMachine)
struct PostgresBackupTests {
    static let databaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// PostgreSQL's own tools, of the server's version (Debian installs them per version).
    static func tool(_ name: String) -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted(by: >) ?? []
        return (versions.map { "/usr/lib/postgresql/\($0)/bin/\(name)" } + ["/usr/bin/\(name)"]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func run(_ tool: String, _ arguments: [String]) async throws {
        let (status, message) = try await runToEnd(tool, arguments)
        guard status == 0 else { throw CLIFailure(text: "\(tool) failed (\(status)): \(message)") }
    }

    struct CLIFailure: Error, CustomStringConvertible {
        var text: String
        var description: String { text }
    }

    @Test(.enabled(if: databaseURL != nil && tool("pg_dump") != nil && tool("pg_restore") != nil))
    func aDumpRestoresEverything() async throws {
        let base = try #require(Self.databaseURL)
        let schema = "t_backup_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
        // A generous wait, as the other PostgreSQL tests': other suites keep the machine busy.
        let separator = base.contains("?") ? "&" : "?"
        let url = try DatabaseURL(base + separator + "schema=\(schema)&wait_timeout=30")
        // libpq's own URL: the server's, without Relink's parameters.
        let libpq = base.split(separator: "?").first.map(String.init) ?? base
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-pgdump-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dump = folder.appending(path: "relink.dump").path

        var store = try await PostgresStore.connect(url, logger: logger)
        var links: [ShortLinkRecord] = []
        for code in ["dump1", "dump2", "dump3"] {
            var parameters = LinkParameters()
            parameters.link = "https://pictlink.com/\(code)"
            links.append(
                try await store.insertLink(
                    ShortLinkDraft(
                        projectId: "pictlink", domain: "https://go.pictlink.com", code: code,
                        longLink: "https://go.pictlink.com/?link=https://pictlink.com/\(code)", parameters: parameters, suffixOption: .custom,
                        idempotencyKey: nil, createdAt: Date())))
        }
        let today = EventCounterKey.day(of: Date())
        var counts: [EventCounterKey: Int64] = [:]
        for (index, link) in links.enumerated() {
            counts[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .click)] = Int64(10 + index)
            counts[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .click, variant: "a")] = 1
            counts[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .appInstall, confidence: .unique)] = 2
        }
        try await store.addEventCounts(counts)
        var clicks: [Int64] = []
        for link in links { clicks.append(try await store.clickCount(linkId: link.id)) }
        #expect(clicks.allSatisfy { $0 >= 10 }, "\(clicks)")
        _ = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example/relink", events: ["click"], secret: "whsec_dump")

        do {
            try await Self.run(Self.tool("pg_dump")!, ["--format=custom", "--schema=\(schema)", "--file", dump, libpq])
            store.close()
            let admin = try await PostgresStore.connect(try DatabaseURL(base + separator + "wait_timeout=30"), logger: logger)
            try await admin.execute("DROP SCHEMA \(schema) CASCADE")
            admin.close()
            try await Self.run(Self.tool("pg_restore")!, ["--dbname", libpq, dump])

            store = try await PostgresStore.connect(url, logger: logger)
            for (index, link) in links.enumerated() {
                let restored = try #require(try await store.link(domain: link.domain, code: link.code), "\(link.code)")
                #expect(restored.id == link.id && restored.longLink == link.longLink)
                #expect(try await store.clickCount(linkId: link.id) == clicks[index])
            }
            #expect(try await store.webhooks(projectId: "pictlink").map(\.url) == ["https://hooks.example/relink"])
            // The triggers came back with the schema: a link deleted by hand takes its counters.
            try await store.execute("DELETE FROM links WHERE id = \(links[0].id)")
            #expect(try await store.clickCount(linkId: links[0].id) == 0)
            try await store.execute("DROP SCHEMA \(schema) CASCADE")
            store.close()
        } catch {
            try? await store.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            store.close()
            throw error
        }
    }

    /// The same steps while `relink serve` takes clicks and mints on the schema: the dump, restored into a database of
    /// its own, holds every link minted before it began, and no counter lower than the store's then.
    @Test(.enabled(if: databaseURL != nil && tool("pg_dump") != nil && tool("pg_restore") != nil))
    func aDumpUnderLoadRestoresEverythingWrittenBeforeIt() async throws {
        let executable = try #require(CrashSafetyTests.executable, "relink is not built beside the tests")
        let base = try #require(Self.databaseURL)
        let schema = "t_dumpload_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
        let database = "relink_restore_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
        let separator = base.contains("?") ? "&" : "?"
        let storeArguments = ["--database", base + separator + "schema=\(schema)&wait_timeout=30"]
        // libpq's own URLs, without Relink's parameters: the server's database, and the one restored into.
        let libpq = base.split(separator: "?").first.map(String.init) ?? base
        let restoredLibpq = libpq.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/") + "/\(database)"
        let query = base.split(separator: "?").dropFirst().first.map { "\($0)&" } ?? ""
        let restoredURL = restoredLibpq + "?" + query + "schema=\(schema)&wait_timeout=30"
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-pgdump-load-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dump = folder.appending(path: "relink.dump").path
        let admin = try await PostgresStore.connect(try DatabaseURL(base + separator + "wait_timeout=30"), logger: logger)
        defer { admin.close() }

        let key = try #require(
            try await EndToEndTests.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes] + storeArguments).first)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            let server = try await CrashSafetyTests.Server(
                executable: executable, storeArguments: storeArguments, log: folder.appending(path: "serve.log"))
            // Clicks on the first links, and mints, while the copy is taken.
            let load = try await MintingLoad.start(http: http, port: server.port, key: key, pathPrefix: "dump")
            let minted = load.minted
            try await Task.sleep(for: .seconds(3))

            // What the store holds when the dump begins.
            let before = minted.withLockedValue { $0 }
            let live = try await PostgresStore.connect(try DatabaseURL(storeArguments[1]), logger: logger)
            var links: [ShortLinkRecord] = []
            for code in before { links.append(try #require(try await live.link(domain: "https://go.pictlink.com", code: code))) }
            let clicksBefore = try await CrashSafetyTests.storedClicks(links, in: live)
            live.close()
            try await Self.run(Self.tool("pg_dump")!, ["--format=custom", "--schema=\(schema)", "--file", dump, libpq])
            try await Task.sleep(for: .seconds(1))
            await load.stop()
            await server.signal(SIGTERM)
            #expect(load.clicks.acknowledged > 0)
            #expect(minted.withLockedValue { $0.count } > before.count, "no link was minted while the dump ran")

            try await admin.execute("CREATE DATABASE \(database)")
            try await Self.run(Self.tool("pg_restore")!, ["--dbname", restoredLibpq, dump])
            let restored = try await PostgresStore.connect(try DatabaseURL(restoredURL), logger: logger)
            var restoredLinks: [ShortLinkRecord] = []
            for code in before {
                let link = try await restored.link(domain: "https://go.pictlink.com", code: code)
                #expect(link != nil, "\(code), minted before the dump, is not in it")
                if let link { restoredLinks.append(link) }
            }
            let clicksInDump = try await CrashSafetyTests.storedClicks(restoredLinks, in: restored)
            restored.close()
            #expect(clicksInDump >= clicksBefore, "the dump holds \(clicksInDump) clicks, the store held \(clicksBefore) when it began")
            print("pg_dump under load: \(before.count) links before it, \(clicksBefore) clicks stored then, \(clicksInDump) in the dump")
        } catch {
            try await http.shutdown()
            try? await admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try? await admin.execute("DROP DATABASE IF EXISTS \(database)")
            throw error
        }
        try await http.shutdown()
        try await admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        try await admin.execute("DROP DATABASE IF EXISTS \(database)")
    }
}
