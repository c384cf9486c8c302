import Foundation
import GRDB
import RelinkCore
import Testing

@testable import RelinkStore

@Suite("SQLite store")
struct SQLiteStoreTests {
    @Test func aFileKeepsEverythingAcrossOpens() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-store-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let store = try SQLiteStore(path: path)
            _ = try await store.insertLink(StoreConformanceTests.draft("keep"))
            _ = try await store.insertAPIKey(projectId: "pictlink", name: nil, keyHash: "h", keyPrefix: "rl_x")
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.link(domain: "https://go.pictlink.com", code: "keep") != nil)
        #expect(try await reopened.apiKey(hash: "h") != nil)
    }

    /// An edit by hand that the triggers do not see (`INSERT OR REPLACE` deletes without them) is counted again when
    /// the database is next opened: the cap reads each webhook's kept count.
    @Test func theNextOpenRecountsWhatHandEditsChanged() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-recount-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let hook: Int64
        do {
            let store = try SQLiteStore(path: path)
            hook = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/a", events: ["click"], secret: "s").id
            try await store.enqueueDeliveries((0..<3).map { WebhookOutboxStoreTests.delivery("d\($0)", webhook: hook) }, maximumPending: 100)
            try await store.writer.write { db in
                try db.execute(
                    sql: """
                        INSERT OR REPLACE INTO webhook_deliveries (id, webhook_id, event, payload, created_at, attempts, next_attempt_at, status)
                        VALUES ('d0', ?, 'click', '{}', 0, 1, 0, 'DELIVERED')
                        """, arguments: [hook])
            }
            #expect(try await store.writer.read { db in try Int.fetchOne(db, sql: "SELECT pending FROM webhooks") } == 3)
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.writer.read { db in try Int.fetchOne(db, sql: "SELECT pending FROM webhooks") } == 2)
        #expect(try await reopened.enqueueDeliveries([WebhookOutboxStoreTests.delivery("d3", webhook: hook)], maximumPending: 3) == 0)
    }

    @Test func refusesASchemaNewerThanItKnows() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-future-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let store = try SQLiteStore(path: path)
        try await store.writer.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99-from-the-future')") }
        // The refusal names the migration this build does not know, not its own last one (which read "the schema is
        // at migration '14-console', newer than this build knows ('14-console')" from a build one migration behind).
        let known = try #require(SQLiteStore.migrator.migrations.last)
        #expect(throws: StoreError.schemaTooNew(found: "99-from-the-future", known: known)) { try SQLiteStore(path: path) }
    }
    /// A row whose stored parameters are not link parameters (edited by hand, or by a newer release): an error the
    /// server answers 503 for, never a crash or a link with parameters missing.
    @Test(arguments: [#"{"link":1}"#, #"{"nope":"x"}"#, #"{"link":null}"#, #"{"link":["a"]}"#, "not json", #"{"link":"#, "[]", #""link""#, "1", ""])
    func aCorruptParametersColumnIsAnError(_ parameters: String) async throws {
        let store = try SQLiteStore()
        _ = try await store.insertLink(StoreConformanceTests.draft("bad"))
        try await store.writer.write { db in try db.execute(sql: "UPDATE links SET parameters = ?", arguments: [parameters]) }
        await #expect(throws: StoreError.self) { try await store.link(domain: "https://go.pictlink.com", code: "bad") }
    }
    /// Values as JSON stored them: an empty one is an absent parameter (as `LinkParameters` has it), a NUL stays.
    @Test func storedValuesAreReadWhole() async throws {
        let store = try SQLiteStore()
        _ = try await store.insertLink(StoreConformanceTests.draft("raw"))
        try await store.writer.write { db in
            try db.execute(sql: "UPDATE links SET parameters = ?", arguments: [#"{"link":"https://pictlink.com/a\u0000b","apn":"","st":"é"}"#])
        }
        let link = try #require(try await store.link(domain: "https://go.pictlink.com", code: "raw"))
        #expect(link.parameters == LinkParameters([.link: "https://pictlink.com/a\u{0}b", .st: "é"]))
        #expect(link.parameters == (try await store.links(projectId: "pictlink", beforeId: nil, limit: 1)).first?.parameters)
    }
    /// A key given twice (only a hand-edited row has one) reads as its first value, whether SQLite or Foundation
    /// decodes the row (an escaped NUL anywhere sends it to Foundation), as on PostgreSQL.
    @Test(arguments: [
        #"{"link":"https://pictlink.com/a","link":"https://pictlink.com/b"}"#,
        #"{"link":"https://pictlink.com/a","st":"\u0000","link":"https://pictlink.com/b"}"#,
    ])
    func aKeyGivenTwiceReadsAsItsFirstValue(_ parameters: String) async throws {
        let store = try SQLiteStore()
        _ = try await store.insertLink(StoreConformanceTests.draft("twice"))
        try await store.writer.write { db in try db.execute(sql: "UPDATE links SET parameters = ?", arguments: [parameters]) }
        let link = try #require(try await store.link(domain: "https://go.pictlink.com", code: "twice"))
        #expect(link.parameters[.link] == "https://pictlink.com/a")
    }
}
