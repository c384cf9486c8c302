import Foundation
import Logging
import PostgresNIO
import RelinkCore

@testable import RelinkStore

/// The stores the conformance suite runs against: SQLite always, PostgreSQL when `RELINK_TEST_DATABASE_URL` names
/// a server (`.ci/run` starts one).
enum StoreKind: String, CustomStringConvertible, Sendable, CaseIterable {
    case sqlite
    case postgres

    var description: String { rawValue }

    static let databaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

    /// Evaluated once, when the tests are listed: says once that the PostgreSQL half is skipped.
    static let available: [StoreKind] = {
        guard databaseURL != nil else {
            print(
                "note: RELINK_TEST_DATABASE_URL is not set, so the PostgreSQL half of the store tests is skipped (.ci/run starts a server and sets it)"
            )
            return [.sqlite]
        }
        return [.sqlite, .postgres]
    }()
}

/// A fresh, empty store of one kind; PostgreSQL stores live in a schema of their own, dropped by `close`.
struct TestStore: Sendable {
    let store: any RelinkStore
    let kind: StoreKind
    let schema: String?

    static func make(_ kind: StoreKind) async throws -> TestStore {
        switch kind {
        case .sqlite:
            return TestStore(store: try SQLiteStore(), kind: kind, schema: nil)
        case .postgres:
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(16)
            return TestStore(store: try await PostgresStore.connect(try url(schema: schema), logger: logger), kind: kind, schema: schema)
        }
    }

    static let logger = {
        var logger = Logger(label: "relink.test.postgres")
        logger.logLevel = .warning
        return logger
    }()

    static func url(schema: String) throws -> DatabaseURL {
        guard let base = StoreKind.databaseURL else { throw StoreError.unavailable("RELINK_TEST_DATABASE_URL is not set") }
        // A generous wait: these tests check behaviour, on a machine that other suites keep busy.
        return try DatabaseURL(base + (base.contains("?") ? "&" : "?") + "schema=\(schema)&wait_timeout=60")
    }

    /// Another connection pool on the same database, as a second instance would have.
    func secondInstance() async throws -> any RelinkStore {
        guard let schema else { return store }
        return try await PostgresStore.connect(try Self.url(schema: schema), logger: Self.logger)
    }

    func close() async {
        guard let postgres = store as? PostgresStore, let schema else { return }
        _ = try? await postgres.rows(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        postgres.close()
    }

    /// Runs `body` with a fresh store and another connection pool on it, as a second instance has (the same store on
    /// SQLite), and drops both afterwards, also when `body` fails.
    static func withTwoInstances(_ kind: StoreKind, _ body: (any RelinkStore, any RelinkStore) async throws -> Void) async throws {
        let test = try await make(kind)
        let second: any RelinkStore
        do {
            second = try await test.secondInstance()
        } catch {
            await test.close()
            throw error
        }
        do {
            try await body(test.store, second)
        } catch {
            (second as? PostgresStore)?.close()
            await test.close()
            throw error
        }
        (second as? PostgresStore)?.close()
        await test.close()
    }

    /// Runs `body` with a fresh store and drops it afterwards, also when `body` fails.
    static func with(_ kind: StoreKind, _ body: (any RelinkStore) async throws -> Void) async throws {
        let test = try await make(kind)
        do {
            try await body(test.store)
        } catch {
            await test.close()
            throw error
        }
        await test.close()
    }
}
