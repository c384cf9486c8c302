import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import RelinkCore
import Testing

@testable import RelinkStore

@Suite("PostgreSQL store")
struct PostgresStoreTests {
    static var serverAvailable: Bool { StoreKind.databaseURL != nil }

    @Test func parsesDatabaseURLs() throws {
        let url = try DatabaseURL("postgres://relink:p%40ss@db.internal:6432/links?sslmode=require&schema=relink_prod&pool_max_conns=40")
        #expect(url.host == "db.internal")
        #expect(url.port == 6432)
        #expect(url.user == "relink")
        #expect(url.password == "p@ss")
        #expect(url.database == "links")
        #expect(url.tls == .require)
        #expect(url.schema == "relink_prod")
        #expect(url.maximumConnections == 40)
        #expect(url.description == "postgres://relink:***@db.internal:6432/links?schema=relink_prod")

        let defaults = try DatabaseURL("postgresql://app@[::1]/")
        #expect(defaults.host == "::1")
        #expect(defaults.port == 5432)
        #expect(defaults.database == "app")
        #expect(defaults.tls == .prefer)
        #expect(defaults.password == nil)
    }

    @Test(arguments: [
        ("mysql://x@h/db", "scheme"), ("postgres:///db", "no host"), ("postgres://h/db?sslmode=sometimes", "sslmode"),
        ("postgres://h/db?schema=Bad-Name", "schema"), ("postgres://h/db?colour=blue", "unknown parameter 'colour'"),
        ("postgres://h/a/b", "just the database name"), ("not a url", "postgres"),
    ])
    func rejectsBadDatabaseURLs(_ text: String, _ reason: String) {
        #expect {
            try DatabaseURL(text)
        } throws: { error in
            guard case .invalidDatabaseURL(let why) = error as? StoreError else { return false }
            return why.contains(reason) && !why.contains("secret")
        }
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        // Port 1 on loopback: nothing listens there.
        let url = try DatabaseURL("postgres://relink:secret@127.0.0.1:1/relink?sslmode=disable")
        await #expect {
            try await PostgresStore.connect(url, logger: TestStore.logger)
        } throws: { error in
            guard case .unavailable(let why) = error as? StoreError else { return false }
            return why.contains("127.0.0.1:1") && !why.contains("secret")
        }
    }

    /// Instances starting together against an empty database: each migration is applied once, every one starts.
    @Test(.enabled(if: serverAvailable)) func instancesStartingTogetherMigrateOnce() async throws {
        let schema = "t_start_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let url = try TestStore.url(schema: String(schema))
        let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
            for _ in 0..<8 { group.addTask { try await PostgresStore.connect(url, logger: TestStore.logger) } }
            return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
        }
        // In the order they were applied (names sort "10-…" before "2-…").
        let applied = try await stores[0].rows("SELECT name FROM relink_migrations ORDER BY applied_at, name").map {
            try $0.value("name", as: String.self)
        }
        #expect(applied == PostgresStore.migrations.map(\.name))
        _ = try await stores[0].rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        for store in stores { store.close() }
    }

    @Test(.enabled(if: serverAvailable)) func refusesASchemaNewerThanItKnows() async throws {
        let test = try await TestStore.make(.postgres)
        let postgres = try #require(test.store as? PostgresStore)
        try await postgres.rows("INSERT INTO relink_migrations (name, applied_at) VALUES ('99-from-the-future', 0)")
        await #expect(throws: StoreError.schemaTooNew(found: "99-from-the-future", known: PostgresStore.migrations.last!.name)) {
            try await PostgresStore.connect(try TestStore.url(schema: test.schema!), logger: TestStore.logger)
        }
        await test.close()
    }

    /// The link lookup is a statement each connection prepares once. One that failed stays failed on its connection
    /// (postgres-nio keeps the error), and one whose columns changed type fails with `cached plan must not change
    /// result type`: a connection whose lookup failed is closed, so lookups recover once the database is right again.
    @Test(.enabled(if: serverAvailable)) func lookupsRecoverFromAFailedOrOutdatedPreparedStatement() async throws {
        let test = try await TestStore.make(.postgres)
        let postgres = try #require(test.store as? PostgresStore)
        _ = try await test.store.insertLink(StoreConformanceTests.draft("prepared"))
        #expect(try await test.store.link(domain: "https://go.pictlink.com", code: "prepared")?.code == "prepared")

        // The table's columns change type under the prepared statement.
        try await postgres.rows("ALTER TABLE links ALTER COLUMN name TYPE varchar(200)")
        for _ in 0..<3 { _ = try? await test.store.link(domain: "https://go.pictlink.com", code: "prepared") }
        #expect(try await test.store.link(domain: "https://go.pictlink.com", code: "prepared")?.code == "prepared")

        // The table is away while a connection prepares the statement, then back.
        try await postgres.rows("ALTER TABLE links RENAME TO links_away")
        await #expect(throws: StoreError.self) { try await test.store.link(domain: "https://go.pictlink.com", code: "prepared") }
        // Minting meanwhile is the store's problem too (503), not a server error (it was a 500).
        await #expect(throws: StoreError.self) { try await test.store.insertLink(StoreConformanceTests.draft("away")) }
        try await postgres.rows("ALTER TABLE links_away RENAME TO links")
        for _ in 0..<3 { _ = try? await test.store.link(domain: "https://go.pictlink.com", code: "prepared") }
        #expect(try await test.store.link(domain: "https://go.pictlink.com", code: "prepared")?.code == "prepared")
        await test.close()
    }

    /// One schema, one channel, however the URL names it; a channel name fits PostgreSQL's 63 bytes.
    @Test func theChangeChannelIsTheSchemasAndFits() {
        #expect(PostgresStore.channel(schema: "public") == "relink_links", "no schema, or schema=public, as before")
        #expect(PostgresStore.channel(schema: "relink_prod") == "relink_links_relink_prod")
        let long = String(repeating: "s", count: 63)
        #expect(PostgresStore.channel(schema: long).utf8.count <= 63)
        #expect(PostgresStore.channel(schema: long) != PostgresStore.channel(schema: String(long.dropLast())))
        // A schema named after a user can hold any character; LISTEN gets the name as it is.
        for odd in [#"Odd"User"#, "sp ace", "Upper", "ü"] {
            let channel = PostgresStore.channel(schema: odd)
            #expect(channel.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }, "\(channel)")
        }
        #expect(PostgresStore.channel(schema: "Upper") != PostgresStore.channel(schema: "upper"))
    }

    /// An instance whose URL names no schema keeps the one its user's default path gave at start: a schema named after
    /// the user, created later (another deployment's `schema=relink`), must not take its tables over while it runs.
    @Test(.enabled(if: serverAvailable)) func withoutASchemaTheTablesStayWhereTheyWereAtStart() async throws {
        let test = try await TestStore.make(.postgres)
        let admin = try #require(test.store as? PostgresStore)
        let database = "t_db_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        try await admin.execute("CREATE DATABASE \(database)")
        let base = try #require(StoreKind.databaseURL)
        var components = try #require(URLComponents(string: base))
        components.path = "/\(database)"
        let text = try #require(components.string)
        let url = try DatabaseURL(text)
        let store = try await PostgresStore.connect(url, logger: TestStore.logger)
        #expect(store.schema == "public")
        _ = try await store.insertLink(StoreConformanceTests.draft("pinned"))
        try await store.execute("CREATE SCHEMA \(PostgresStore.quotedIdentifier(url.user))")
        for _ in 0..<3 {
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "pinned")?.code == "pinned")
        }
        store.close()
        try await admin.execute("DROP DATABASE \(database) WITH (FORCE)")
        await test.close()
    }

    /// A schema of up to 63 characters, which the URL takes, mints and notifies (a channel past 63 bytes made every
    /// mint and edit fail with 500).
    @Test(.enabled(if: serverAvailable)) func aLongSchemaMintsAndNotifies() async throws {
        let schema = "t_long_" + String(repeating: "x", count: 44) + UUID().uuidString.lowercased().prefix(12).replacingOccurrences(of: "-", with: "")
        let url = try TestStore.url(schema: String(schema.prefix(63)))
        let store = try await PostgresStore.connect(url, logger: TestStore.logger)
        let other = try await PostgresStore.connect(url, logger: TestStore.logger)
        let (changes, continuation) = AsyncStream.makeStream(of: LinkChange.self)
        let watcher = Task { await other.watchLinkChanges { continuation.yield($0) } }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == .all)
        _ = try await store.insertLink(StoreConformanceTests.draft("long"))
        #expect(await iterator.next() == .link(domain: "https://go.pictlink.com", code: "long"))
        watcher.cancel()
        await watcher.value
        _ = try await store.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(url.schema!) CASCADE"))
        other.close()
        store.close()
    }

    /// A log handler that keeps the messages in a shared box. A value, as swift-log asks: the store sets its pool's
    /// copy to a higher level, which must not silence the store's own.
    struct LoggedMessages: LogHandler {
        let messages: NIOLockedValueBox<[String]>
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { messages.withLockedValue { $0.append("\(event.message)") } }
    }

    /// A listening connection that the database ends is listened again a second later: the cache is emptied (changes
    /// meanwhile may have been missed), and the log says both that it failed and that it recovered.
    @Test(.enabled(if: serverAvailable)) func aListenerEndedByTheDatabaseListensAgainAndSaysSo() async throws {
        let test = try await TestStore.make(.postgres)
        let messages = NIOLockedValueBox([String]())
        let listener = try await PostgresStore.connect(
            try TestStore.url(schema: test.schema!), logger: Logger(label: "test") { _ in LoggedMessages(messages: messages) })
        let (changes, continuation) = AsyncStream.makeStream(of: LinkChange.self)
        let watcher = Task { await listener.watchLinkChanges { continuation.yield($0) } }
        var iterator = changes.makeAsyncIterator()
        #expect(await iterator.next() == .all)
        let postgres = try #require(test.store as? PostgresStore)
        // This test's listener only: other tests listen at the same time, each on its schema's channel.
        let ended = try await postgres.rows(
            """
            SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
            WHERE query LIKE 'LISTEN%' AND query LIKE \("%" + PostgresStore.channel(schema: test.schema!) + "%") AND pid <> pg_backend_pid()
            """)
        #expect(ended.count == 1)
        #expect(await iterator.next() == .all, "listening again empties the cache")
        // The line that it listens again comes just after the cache is emptied.
        for _ in 0..<100 where !messages.withLockedValue({ $0.contains { $0.contains("again") } }) {
            try await Task.sleep(for: .milliseconds(20))
        }
        let logged = messages.withLockedValue { $0 }
        #expect(logged.contains { $0.hasPrefix("listening for link changes failed") }, "\(logged)")
        #expect(logged.contains { $0.hasPrefix("listening for link changes again, after 1 failed attempts") }, "\(logged)")
        watcher.cancel()
        await watcher.value
        listener.close()
        await test.close()
    }

    /// A link minted or changed through one pool reaches the other pool's listener.
    @Test(.enabled(if: serverAvailable)) func linkChangesReachOtherInstances() async throws {
        let test = try await TestStore.make(.postgres)
        let other = try #require(try await test.secondInstance() as? PostgresStore)
        let (changes, continuation) = AsyncStream.makeStream(of: LinkChange.self)
        let watcher = Task { await other.watchLinkChanges { continuation.yield($0) } }
        var iterator = changes.makeAsyncIterator()
        // Listening starts with a reset: whatever was cached may be stale.
        #expect(await iterator.next() == .all)

        var link = try await test.store.insertLink(StoreConformanceTests.draft("live"))
        #expect(await iterator.next() == .link(domain: "https://go.pictlink.com", code: "live"))
        link.disabled = true
        _ = try await test.store.updateLink(id: link.id) { [link] _ in link }
        #expect(await iterator.next() == .link(domain: "https://go.pictlink.com", code: "live"))

        watcher.cancel()
        await watcher.value
        other.close()
        await test.close()
    }

    /// A transaction abandoned on timeout is rolled back when it gets going again, not committed beside its caller's
    /// retry: a counter batch behind a lock held over its wait counted its clicks twice (found by a helper's attack).
    @Test(.enabled(if: serverAvailable)) func aTransactionAbandonedOnTimeoutIsRolledBack() async throws {
        let test = try await TestStore.make(.postgres)
        let postgres = try #require(test.store as? PostgresStore)
        let link = try await postgres.insertLink(StoreConformanceTests.draft("held"))
        let today = EventCounterKey.day(of: Date())
        try await postgres.addEventCounts([EventCounterKey(linkId: link.id, day: today, platform: .ios, event: .click): 1])
        // Another session holds the counter's row.
        let (released, release) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await postgres.transaction(wait: .seconds(30)) { connection in
                _ = try await connection.query(
                    "SELECT count /* held by the test */ FROM event_counters WHERE link_id = \(link.id) FOR UPDATE", logger: TestStore.logger
                ).collect()
                for await _ in released { break }
            }
        }
        func sessions(_ marker: String) async throws -> Int64 {
            try await StoreConformanceTests.integer(
                "SELECT COUNT(*) AS n FROM pg_stat_activity WHERE query LIKE '%\(marker)%' AND state <> 'idle' AND pid <> pg_backend_pid()",
                in: postgres)
        }
        await Self.waitUntil { (try? await sessions("held by the test")) == 1 }
        // A write behind it gives up after 200 ms; the holder lets go afterwards.
        await #expect(throws: StoreError.self) {
            try await postgres.transaction(wait: .milliseconds(200)) { connection in
                _ = try await connection.query(
                    "UPDATE event_counters SET count = count + 10 /* abandoned */ WHERE link_id = \(link.id)", logger: TestStore.logger
                ).collect()
            }
        }
        release.yield()
        try await holder.value
        await Self.waitUntil { (try? await sessions("abandoned")) == 0 }
        #expect(try await postgres.eventCounts(linkId: link.id, fromDay: today) == [EventCount(platform: .ios, event: .click, count: 1)])
        await test.close()
    }

    /// A timeout that comes while the transaction commits waits for the commit: the caller is not told "failed" of a
    /// change that was saved (a PATCH answered 503 whose change stood, and whose event was never sent). A deferred
    /// trigger makes the commit take 1.4 s, past the 1 s wait (and within the second).
    @Test(.enabled(if: serverAvailable)) func aTimeoutDuringTheCommitWaitsForIt() async throws {
        let test = try await TestStore.make(.postgres)
        let postgres = try #require(test.store as? PostgresStore)
        try await postgres.execute("CREATE TABLE slow_commits (id INTEGER)")
        try await postgres.execute(
            "CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(1.4); RETURN NULL; END $$")
        try await postgres.execute(
            """
            CREATE CONSTRAINT TRIGGER slow_commit AFTER INSERT ON slow_commits DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION slow_commit()
            """)
        try await postgres.transaction(wait: .seconds(1)) { connection in
            _ = try await connection.query("INSERT INTO slow_commits (id) VALUES (1)", logger: TestStore.logger).collect()
        }
        #expect(try await StoreConformanceTests.integer("SELECT COUNT(*) AS n FROM slow_commits", in: postgres) == 1)
        await test.close()
    }

    /// Waits until `condition` holds (at most 10 s: a wait for another connection to get somewhere, not a measurement).
    static func waitUntil(_ condition: () async -> Bool) async {
        for _ in 0..<10_000 {
            if await condition() { return }
            try? await Task.sleep(for: .milliseconds(1))
        }
    }
}
