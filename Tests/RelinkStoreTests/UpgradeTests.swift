import Foundation
import GRDB
import PostgresNIO
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkStore

/// A store left by any earlier release, filled with every kind of row it could hold, opens on the current release
/// with every row still there and readable. The versions come from the migration lists themselves, so a new
/// migration is covered as soon as it is added.
@Suite("Upgrades from every earlier schema", .loadsTheMachine)
struct UpgradeTests {
    static var serverAvailable: Bool { StoreKind.databaseURL != nil }

    /// Every schema before the current one, named by its last migration.
    static let earlierSQLiteVersions = Array(SQLiteStore.migrator.migrations.dropLast())
    static let earlierPostgresVersions = Array(PostgresStore.migrations.map(\.name).dropLast())

    /// The migrations of `version`: the list up to its name, included.
    static func migrations(of version: String, in list: [String]) throws -> [String] {
        let last = try #require(list.firstIndex(of: version))
        return Array(list[...last])
    }

    @Test func theFillStepsFollowTheMigrationList() {
        let names = SQLiteStore.migrator.migrations
        #expect(PostgresStore.migrations.map(\.name) == names)
        let stepNames = OldRows.steps.map(\.migration)
        // Each step names a migration, once, in the list's order.
        #expect(stepNames == names.filter(stepNames.contains))
    }

    /// The steps leave no table empty and no nullable column unset: a migration that adds a table or a column
    /// needs a step of its own before this passes.
    @Test func theFillStepsWriteEveryTableAndColumn() async throws {
        try await Self.withDatabaseFile { path in
            let pool = try DatabasePool(path: path)
            let names = SQLiteStore.migrator.migrations
            try SQLiteStore.migrate(pool)
            try await Self.fill(pool, with: OldRows.written(by: names).statements)
            let tables = try await pool.read { db in
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('grdb_migrations', 'sqlite_sequence')")
            }
            #expect(tables.count > 10)
            for table in tables {
                let columns = try await pool.read { db in try db.columns(in: table).map(\.name) }
                for column in columns {
                    let setting = try await pool.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(\(column)) FROM \(table)") ?? 0 }
                    #expect(setting > 0, "no row of \(table) sets \(column)")
                }
            }
            try pool.close()
        }
    }

    @Test(arguments: earlierSQLiteVersions) func aSQLiteStoreKeepsEveryRowFrom(_ version: String) async throws {
        let (statements, rows) = OldRows.written(by: try Self.migrations(of: version, in: SQLiteStore.migrator.migrations))
        try await Self.withDatabaseFile { path in
            do {
                let pool = try DatabasePool(path: path)
                try SQLiteStore.migrate(pool, upTo: version)
                try await Self.fill(pool, with: statements)
                try pool.close()
            }
            let store = try SQLiteStore(path: path)
            try await rows.expectReadable(in: store)
            try await rows.expectUsable(store)
        }
    }

    @Test(.enabled(if: serverAvailable), .serialized, arguments: earlierPostgresVersions)
    func aPostgresStoreKeepsEveryRowFrom(_ version: String) async throws {
        try await Self.withOldPostgresSchema(at: version) { test, rows in
            let upgraded = try await test.secondInstance()
            defer { upgraded.close() }
            let old = try #require(test.store as? PostgresStore)
            #expect(try await Self.appliedMigrations(old).map(\.name).sorted() == PostgresStore.migrations.map(\.name).sorted())
            try await rows.expectReadable(in: upgraded)
            try await rows.expectUsable(upgraded)
        }
    }

    /// Instances starting together on an old schema: each later migration is applied once (by whichever got the
    /// lock first; the others wait, then find it applied), every instance starts, and the rows are intact.
    @Test(.enabled(if: serverAvailable)) func instancesStartingTogetherOnAnOldSchemaMigrateItOnce() async throws {
        try await Self.withOldPostgresSchema(at: "8-imported-links") { test, rows in
            let old = try #require(test.store as? PostgresStore)
            let appliedBefore = try await Self.appliedMigrations(old)
            let url = try TestStore.url(schema: try #require(test.schema))
            let stores = try await withThrowingTaskGroup(of: PostgresStore.self) { group in
                for _ in 0..<4 { group.addTask { try await PostgresStore.connect(url, logger: TestStore.logger) } }
                return try await group.reduce(into: [PostgresStore]()) { $0.append($1) }
            }
            defer { for store in stores { store.close() } }
            let applied = try await Self.appliedMigrations(stores[0])
            #expect(applied.map(\.name).sorted() == PostgresStore.migrations.map(\.name).sorted())
            // The old ones were left alone.
            #expect(applied.filter { old in appliedBefore.contains { $0.name == old.name } }.map(\.at) == appliedBefore.map(\.at))
            try await rows.expectReadable(in: stores[0])
            for store in stores { #expect(try await store.link(domain: OldRows.domain, code: "plain") != nil) }
        }
    }

    // MARK: - Old stores

    static func withDatabaseFile(_ body: (String) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-upgrade-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        try await body(path)
    }

    static func fill(_ pool: DatabasePool, with statements: [OldRows.Statement]) async throws {
        try await pool.write { db in
            for statement in statements { try db.execute(sql: statement.sql, arguments: statement.sqliteArguments) }
        }
    }

    /// A fresh schema at `version`, filled with the rows of its migrations; dropped afterwards, also on failure.
    static func withOldPostgresSchema(at version: String, _ body: (TestStore, OldRows) async throws -> Void) async throws {
        let wanted = try migrations(of: version, in: PostgresStore.migrations.map(\.name))
        let (statements, rows) = OldRows.written(by: wanted)
        let test = try await TestStore.make(.postgres)
        do {
            let postgres = try #require(test.store as? PostgresStore)
            // `connect` brought the schema up to date: it starts again, up to `version`.
            try await postgres.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(try #require(test.schema)) CASCADE"))
            try await postgres.migrate(upTo: version)
            #expect(try await appliedMigrations(postgres).map(\.name).sorted() == wanted.sorted())
            for statement in statements { try await postgres.rows(statement.postgresQuery) }
            try await body(test, rows)
        } catch {
            await test.close()
            throw error
        }
        await test.close()
    }

    static func appliedMigrations(_ store: PostgresStore) async throws -> [(name: String, at: Double)] {
        try await store.rows("SELECT name, applied_at FROM relink_migrations ORDER BY applied_at, name").map {
            (try $0.value("name", as: String.self), try $0.value("applied_at", as: Double.self))
        }
    }
}
