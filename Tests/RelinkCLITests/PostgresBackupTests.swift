import Foundation
import Logging
import RelinkCore
import Testing

@testable import RelinkStore

/// docs/operations.md#backups for PostgreSQL, run as written: `pg_dump --format=custom` of Relink's schema while it
/// is in use, the schema dropped, `pg_restore` into the empty database: every link, counter and webhook is back,
/// the migrations are not applied again, and a link deleted by hand still takes its counters (the triggers came back).
@Suite("PostgreSQL backups")
struct PostgresBackupTests {
    static let databaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// PostgreSQL's own tools, of the server's version (Debian installs them per version).
    static func tool(_ name: String) -> String? {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?.sorted(by: >) ?? []
        return (versions.map { "/usr/lib/postgresql/\($0)/bin/\(name)" } + ["/usr/bin/\(name)"]).first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw CLIFailure(text: "\(tool) failed (\(process.terminationStatus)): \(message)") }
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
            try Self.run(Self.tool("pg_dump")!, ["--format=custom", "--schema=\(schema)", "--file", dump, libpq])
            store.close()
            let admin = try await PostgresStore.connect(try DatabaseURL(base + separator + "wait_timeout=30"), logger: logger)
            try await admin.execute("DROP SCHEMA \(schema) CASCADE")
            admin.close()
            try Self.run(Self.tool("pg_restore")!, ["--dbname", libpq, dump])

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
}
