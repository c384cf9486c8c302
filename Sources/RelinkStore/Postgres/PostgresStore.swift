import Foundation
import Logging
import NIOSSL
import PostgresNIO
import RelinkCore

/// The store for several instances: PostgreSQL through postgres-nio's connection pool. Every instance runs the
/// same migrations at start (serialised by an advisory lock), claims and counters are single statements that are
/// safe under concurrency, and link changes are broadcast with NOTIFY so each instance can keep its link cache.
public final class PostgresStore: RelinkStore, LinkChangeFeed, Sendable {
    let client: PostgresClient
    let logger: Logger
    let url: DatabaseURL
    /// The NOTIFY channel for link changes: one per schema, so separate deployments in one database stay apart.
    let channel: String
    private let runTask: Task<Void, Never>
    public let description: String

    private init(url: DatabaseURL, logger: Logger) {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: Self.tls(url.tls))
        configuration.options.maximumConnections = url.maximumConnections
        configuration.options.minimumConnections = 2
        configuration.options.connectTimeout = .seconds(5)
        if let schema = url.schema { configuration.options.additionalStartupParameters = [("search_path", schema)] }
        configuration.options.additionalStartupParameters.append(("application_name", "relink"))
        // The pool's own log is chatty at info and warns once (harmlessly) when used before `run()` has begun.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: configuration, backgroundLogger: poolLogger)
        self.client = client
        self.logger = logger
        self.url = url
        self.channel = "relink_links" + (url.schema.map { "_\($0)" } ?? "")
        self.description = "PostgreSQL at \(url)"
        // The pool works only while `run()` does; it ends with `close()`.
        self.runTask = Task { await client.run() }
    }

    /// Connects, brings the schema up to date (or refuses a schema newer than this build) and returns the store.
    public static func connect(_ url: DatabaseURL, logger: Logger = Logger(label: "relink.postgres")) async throws -> PostgresStore {
        // One direct connection first: the pool would keep retrying an unreachable server or a wrong password
        // for a minute, where the user wants the reason at once.
        do {
            try await probe(url, logger: logger)
        } catch {
            throw StoreError.unavailable("cannot connect to \(url): \(Self.explain(error))")
        }
        let store = PostgresStore(url: url, logger: logger)
        do {
            try await store.migrate()
        } catch {
            store.close()
            if let error = error as? StoreError { throw error }
            throw StoreError.unavailable("cannot use the database \(url): \(Self.explain(error))")
        }
        return store
    }

    /// Closes the pool's connections; the store is unusable afterwards.
    public func close() {
        runTask.cancel()
    }

    deinit {
        runTask.cancel()
    }

    static func probe(_ url: DatabaseURL, logger: Logger) async throws {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        let tls: PostgresConnection.Configuration.TLS =
            switch url.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: unverified))
            case .require: .require(try NIOSSLContext(configuration: unverified))
            case .verifyFull: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        var quiet = logger
        quiet.logLevel = .critical
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
        try await connection.close()
    }

    static func tls(_ mode: DatabaseURL.TLSMode) -> PostgresClient.Configuration.TLS {
        var unverified = TLSConfiguration.makeClientConfiguration()
        unverified.certificateVerification = .none
        switch mode {
        case .disable: return .disable
        case .prefer: return .prefer(unverified)
        case .require: return .require(unverified)
        case .verifyFull: return .require(.makeClientConfiguration())
        }
    }

    /// A readable reason: PSQLError's own description hides the server's message on purpose.
    static func explain(_ error: any Error) -> String {
        if let error = error as? PostgresTransactionError {
            return explain(error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? StoreError.unavailable("the transaction failed"))
        }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if let underlying = error.underlying { return "\(underlying)" }
        return "\(error.code)"
    }

    /// Runs `body` in a transaction, rethrowing the error that caused a rollback rather than postgres-nio's wrapper.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch let error as PostgresTransactionError {
            throw Self.unavailable(error.closureError ?? error.beginError ?? error.commitError ?? error)
        }
    }

    /// A lost or refused connection (the server is down, restarting or unreachable) as `StoreError.unavailable`,
    /// which the API answers with 503; anything else unchanged.
    static func unavailable(_ error: any Error) -> any Error {
        guard let psql = error as? PSQLError else { return error }
        let lost: [PSQLError.Code] = [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed]
        let state = psql.serverInfo?[.sqlState] ?? ""
        guard lost.contains(psql.code) || state.hasPrefix("08") || state.hasPrefix("57P") else { return error }
        return StoreError.unavailable("the database is unavailable: \(explain(error))")
    }

    /// Runs SQL without parameters (maintenance, tests).
    func execute(_ sql: String) async throws {
        try await rows(PostgresQuery(unsafeSQL: sql))
    }

    /// Runs a query and collects its rows.
    @discardableResult
    func rows(_ query: PostgresQuery) async throws -> [PostgresRandomAccessRow] {
        do {
            return try await client.query(query, logger: logger).collect().map(PostgresRandomAccessRow.init)
        } catch {
            throw Self.unavailable(error)
        }
    }

    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func constraint(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.constraintName]
    }

    /// A date as the database gives it back (seconds since 1970 as a double), so a record equals its reread.
    static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970)
    }
}

extension PostgresRandomAccessRow {
    func value<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        try self[column].decode(T.self)
    }

    func date(_ column: String) throws -> Date {
        Date(timeIntervalSince1970: try value(column, as: Double.self))
    }

    func optionalDate(_ column: String) throws -> Date? {
        try value(column, as: Double?.self).map(Date.init(timeIntervalSince1970:))
    }
}
