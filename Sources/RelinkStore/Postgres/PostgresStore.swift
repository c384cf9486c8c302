import Crypto
import Foundation
import Logging
import NIOSSL
import PostgresNIO
import RelinkCore
import ServiceLifecycle

/// The store for several instances: PostgreSQL through postgres-nio's connection pool. Every instance runs the
/// same migrations at start (serialised by an advisory lock), claims and counters are single statements that are
/// safe under concurrency, and link changes are broadcast with NOTIFY so each instance can keep its link cache.
public final class PostgresStore: RelinkStore, Sendable {
    let client: PostgresClient
    let logger: Logger
    let url: DatabaseURL
    /// The schema the tables live in: the URL's, or the one the user's default path resolved to at start.
    let schema: String
    /// The NOTIFY channel for link changes: one per schema, so separate deployments in one database stay apart.
    let channel: String
    /// Link lookups by domain and code, many to a query while the pool is busy (see `LinkLookupBatcher`).
    let lookups: LinkLookupBatcher
    /// The connections set up for lookups (see `setUpForLookups`).
    let lookupConnections = LookupConnections()
    private let runTask: Task<Void, Never>
    public let description: String

    private init(url: DatabaseURL, tls: DatabaseURL.TLSSettings, schema: String, logger: Logger) {
        var configuration = PostgresClient.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database,
            tls: Self.tls(tls))
        configuration.options.maximumConnections = url.maximumConnections
        configuration.options.minimumConnections = 2
        configuration.options.connectTimeout = .seconds(5)
        // Pinned, also when the URL names none: PostgreSQL's default path ("$user", public) is looked up again on
        // each statement, and a schema named after the user, created later by another deployment, would take this
        // one's tables over while it runs.
        configuration.options.additionalStartupParameters = [("search_path", Self.quotedIdentifier(schema))]
        configuration.options.additionalStartupParameters.append(("application_name", "relink"))
        // The pool's own log is chatty at info and warns once (harmlessly) when used before `run()` has begun.
        var poolLogger = logger
        poolLogger.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(
            configuration: configuration, eventLoopGroup: SpreadingEventLoopGroup(PostgresClient.defaultEventLoopGroup),
            backgroundLogger: poolLogger)
        self.client = client
        self.logger = logger
        self.url = url
        self.schema = schema
        self.channel = Self.channel(schema: schema)
        // A few queries at once, leaving most of the pool to writes and the API.
        self.lookups = LinkLookupBatcher(maximumQueries: max(1, min(4, url.maximumConnections / 4)), wait: url.requestWait)
        self.description = "PostgreSQL at \(url), schema \(schema)"
        // The pool works only while `run()` does; it ends with `close()`.
        self.runTask = Task { await client.run() }
    }

    /// Connects, brings the schema up to date (or refuses a schema newer than this build) and returns the store.
    public static func connect(_ url: DatabaseURL, logger: Logger = Logger(label: "relink.postgres")) async throws -> PostgresStore {
        // The certificate files first: a missing or unusable one is StoreError.invalidDatabaseURL, naming the file.
        let tls = try url.tlsSettings()
        // One direct connection first: the pool would keep retrying an unreachable server or a wrong password
        // for a minute, where the user wants the reason at once.
        let defaultSchema: String?
        do {
            defaultSchema = try await probe(url, tls: tls, logger: logger)
        } catch {
            throw StoreError.unavailable("cannot connect to \(url): \(Self.explain(error, url: url, tls: tls))")
        }
        let store = PostgresStore(url: url, tls: tls, schema: url.schema ?? defaultSchema ?? "public", logger: logger)
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

    /// Until the application shuts down, then closes the pool and waits for its connections to end. The pool
    /// itself starts in `connect`, since the schema is migrated before the application may serve.
    public func run() async throws {
        try? await gracefulShutdown()
        runTask.cancel()
        await runTask.value
    }

    deinit {
        runTask.cancel()
    }

    /// - Returns: the schema the user's tables go to when the URL names none (`public`, or one named after the user).
    static func probe(_ url: DatabaseURL, tls settings: DatabaseURL.TLSSettings, logger: Logger) async throws -> String? {
        let tls: PostgresConnection.Configuration.TLS =
            switch settings.use {
            case .never: .disable
            case .ifOffered: .prefer(try NIOSSLContext(configuration: settings.configuration))
            case .always: .require(try NIOSSLContext(configuration: settings.configuration))
            }
        var configuration = PostgresConnection.Configuration(
            host: url.host, port: url.port, username: url.user, password: url.password, database: url.database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        var quiet = logger
        quiet.logLevel = .critical
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: quiet)
        do {
            var schema: String?
            for try await name in try await connection.query("SELECT current_schema()", logger: quiet).decode(String?.self) { schema = name }
            try await connection.close()
            return schema
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `name` as an SQL identifier, quoted: a schema named after a user can hold any character.
    static func quotedIdentifier(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The NOTIFY channel for link changes in `schema`: one per schema, so deployments in one database stay apart,
    /// and the same for every spelling of one (none, or `schema=public`, when that is the user's default). Channel
    /// names are identifiers, at most 63 bytes: a long schema's, or one with characters other than `a-z0-9_`, is named
    /// by a digest of it.
    static func channel(schema: String) -> String {
        guard schema != "public" else { return "relink_links" }
        let channel = "relink_links_\(schema)"
        // postgres-nio writes the name into LISTEN as it is: a schema named after a user can hold a quote.
        let plain = schema.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x5F }
        guard !plain || channel.utf8.count > 63 else { return channel }
        let digest = SHA256.hash(data: Data(schema.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return "relink_links_\(digest)"
    }

    /// The pool's TLS: the same settings as the probe's, which `DatabaseURL.tlsSettings()` has checked.
    static func tls(_ settings: DatabaseURL.TLSSettings) -> PostgresClient.Configuration.TLS {
        switch settings.use {
        case .never: .disable
        case .ifOffered: .prefer(settings.configuration)
        case .always: .require(settings.configuration)
        }
    }

    /// A readable reason: PSQLError's own description hides the server's message on purpose. With the URL and its
    /// TLS settings (when connecting), TLS failures name the host, the sslmode and the trusted CAs.
    static func explain(_ error: any Error, url: DatabaseURL? = nil, tls: DatabaseURL.TLSSettings? = nil) -> String {
        if let error = error as? PostgresTransactionError {
            return explain(
                error.closureError ?? error.beginError ?? error.commitError ?? error.rollbackError ?? StoreError.unavailable("the transaction failed")
            )
        }
        if let problem = tlsProblem(error, url: url, tls: tls) { return problem }
        guard let error = error as? PSQLError else { return "\(error)" }
        if let message = error.serverInfo?[.message] {
            return message + (error.serverInfo?[.sqlState].map { " (SQLSTATE \($0))" } ?? "")
        }
        if error.code == .sslUnsupported {
            return "the server does not accept TLS connections" + (url.map { " (sslmode=\($0.tls.rawValue) needs TLS)" } ?? "")
        }
        if let underlying = error.underlying { return tlsProblem(underlying, url: url, tls: tls) ?? "\(underlying)" }
        if error.code == .serverClosedConnection { return "the server closed the connection" }
        return "\(error.code)"
    }

    /// One line for a failed TLS handshake or certificate check (NIOSSL's errors, as a PSQLError's underlying
    /// error); nil for other errors.
    static func tlsProblem(_ error: any Error, url: DatabaseURL?, tls: DatabaseURL.TLSSettings?) -> String? {
        let mode = url.map { " (sslmode=\($0.tls.rawValue)" + ($0.tls == .require && $0.rootCertificates != nil ? " with sslrootcert)" : ")") } ?? ""
        let host = url?.host ?? "the server"
        if let error = error as? NIOSSLExtraError, error == .failedToValidateHostname {
            return "the server's TLS certificate is not valid for host \(host)\(mode): it is signed by a trusted CA "
                + "but does not name \(host); connect with a host name (or IP address) the certificate lists"
        }
        let stack: NIOBoringSSLErrorStack
        switch error {
        case NIOSSLError.handshakeFailed(.sslError(let errors)), NIOSSLError.handshakeFailed(.unknownError(let errors)),
            BoringSSLError.sslError(let errors), BoringSSLError.unknownError(let errors):
            stack = errors
        case NIOSSLError.handshakeFailed(let error):
            return "the TLS handshake with the server failed\(mode): \(error)"
        case NIOSSLError.uncleanShutdown:
            return "the server closed the TLS connection without a TLS close (unclean shutdown)"
        case let error as NIOSSLError:
            return "TLS failed\(mode): \(error)"
        default:
            return nil
        }
        let reasons = stack.map(readableReason)
        if reasons.contains("certificate verify failed") {
            let roots = tls?.roots ?? "the trusted CAs"
            return "the server's TLS certificate is not trusted\(mode): its chain does not lead to \(roots) "
                + "(it is signed by another CA, or a certificate in it has expired or is not yet valid)"
        }
        if reasons.contains("tlsv1 alert certificate required") {
            return "the server asks for a client certificate\(mode): pass sslcert=PATH&sslkey=PATH"
        }
        if url?.clientCertificate != nil,
            reasons.contains(where: { ["tlsv1 alert unknown ca", "sslv3 alert bad certificate", "sslv3 alert certificate expired"].contains($0) })
        {
            return "the server refused the client certificate in sslcert\(mode): \(reasons.joined(separator: "; "))"
        }
        let text = reasons.isEmpty ? "an unknown error" : reasons.joined(separator: "; ")
        return "the TLS handshake with the server failed\(mode): \(text)"
    }

    /// BoringSSL's `error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at file:line` as
    /// `certificate verify failed`.
    private static func readableReason(_ error: BoringSSLInternalError) -> String {
        var text = error.description
        if let at = text.range(of: " at ", options: .backwards) { text = String(text[..<at.lowerBound]) }
        guard text.contains("error:"), let reason = text.split(separator: ":").last else {
            return text.hasPrefix("Error: ") ? String(text.dropFirst(7)).trimmingCharacters(in: .whitespaces) : text
        }
        return reason.lowercased().replacingOccurrences(of: "_", with: " ")
    }

    /// Runs `body` in a transaction, rethrowing the error that caused a rollback rather than postgres-nio's wrapper.
    /// - Parameter wait: how long it may take before it is abandoned as `StoreError.unavailable` (the URL's
    ///   `wait_timeout` by default).
    ///
    /// A transaction abandoned on timeout is rolled back, not committed, when it gets going again: its caller was told
    /// it failed and may do it again (a counter batch waiting over 30 s behind a lock held by hand committed after it
    /// and beside its retry, counting its clicks twice). A timeout that comes while it commits waits for the commit,
    /// one more `wait` at most: a change answered as failed was then never saved, unless the commit itself outlasts
    /// that, which the answer then says.
    func transaction<T: Sendable>(
        wait: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let abandoned = AbandonedFlag()
        let work: @Sendable () async throws -> T = {
            do {
                return try await self.client.withTransaction(logger: self.logger) { connection in
                    let result = try await body(connection)
                    guard abandoned.beginCommit() else {
                        throw StoreError.unavailable("the transaction was abandoned after its wait, and rolled back")
                    }
                    return result
                }
            } catch let error as PostgresTransactionError {
                throw Self.unavailable(error.closureError ?? error.beginError ?? error.commitError ?? error)
            }
        }
        return try await bounded(wait ?? url.requestWait, onTimeout: { abandoned.abandon() }, work)
    }

    /// How long a batched write (events, pending clicks, the purge) may take: off the request path, and larger.
    static let batchWait = Duration.seconds(30)

    /// Runs `body`, or gives up after `wait` with `StoreError.unavailable`: a database that is down, unreachable
    /// (packets dropped, no reset) or out of connections costs a request at most `wait`, never a hang or a 500.
    /// The body runs in a task of its own, which is cancelled but not awaited on timeout: a query stuck on a dead
    /// connection need not notice cancellation, and the request must not wait for it. Cancellation (a stop's
    /// deadline) gives up at once the same way.
    func bounded<T: Sendable>(
        _ wait: Duration, onTimeout: @escaping @Sendable () -> Bool = { true }, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let timeout = StoreError.unavailable("the database did not answer within \(wait) (\(url.host):\(url.port))")
        let work = CancellableWork()
        let once = ResumeOnce<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                // Cancelled before it began: answered already, nothing to start.
                guard once.attach(continuation) else { return }
                // The timeout is an event loop's timer, cancelled when the answer comes: one task per query instead of
                // three, and nothing of the query kept for the rest of the wait (a timer task sleeping it out held
                // its query's result, and the process grew under load;
                // docs/performance.md#query-timeouts-as-event-loop-timers).
                let loop = PostgresClient.defaultEventLoopGroup.any()
                let timer = loop.scheduleTask(in: TimeAmount(wait)) {
                    // A transaction that is committing is not abandoned: its answer would say "failed" of a change
                    // that is saved. Its commit gets one more wait, then the answer says the outcome is unknown.
                    guard onTimeout() else {
                        loop.scheduleTask(in: TimeAmount(wait)) {
                            let unknown = StoreError.unavailable(
                                "the database did not confirm the change within \(wait * 2) (\(self.url.host):\(self.url.port)); it may have been saved"
                            )
                            if once.resume(with: .failure(unknown)) { work.cancel() }
                        }
                        return
                    }
                    if once.resume(with: .failure(timeout)) { work.cancel() }
                }
                work.start {
                    let result: Result<T, any Error>
                    do { result = .success(try await body()) } catch { result = .failure(error) }
                    timer.cancel()
                    once.resume(with: result)
                }
            }
        } onCancel: {
            _ = onTimeout()
            _ = once.resume(with: .failure(StoreError.unavailable("stopped waiting for the database (\(url.host):\(url.port)): cancelled")))
            work.cancel()
        }
    }

    /// A lost or refused connection (the server is down, restarting or unreachable) as `StoreError.unavailable`,
    /// which the API answers with 503; anything else unchanged.
    static func unavailable(_ error: any Error) -> any Error {
        guard let psql = error as? PSQLError else { return error }
        let lost: [PSQLError.Code] = [.connectionError, .serverClosedConnection, .clientClosedConnection, .poolClosed]
        let state = psql.serverInfo?[.sqlState] ?? ""
        // Connection exceptions (08), transaction rollbacks such as deadlocks (40), insufficient resources such as a
        // full disk or too many connections (53), a lock not available (55P03), operator intervention such as a
        // shutdown (57), system errors (58), and a table or column that is not there (42P01, 42703: a schema changed
        // by hand, or restored without them): the database's trouble, not the request's.
        let transient = ["08", "40", "53", "57", "58"].contains { state.hasPrefix($0) } || ["55P03", "42P01", "42703"].contains(state)
        guard lost.contains(psql.code) || transient else { return error }
        return StoreError.unavailable("the database is unavailable: \(explain(error))")
    }

    /// Runs SQL without parameters (maintenance, tests).
    func execute(_ sql: String) async throws {
        try await rows(PostgresQuery(unsafeSQL: sql))
    }

    /// Runs a query and collects its rows.
    /// - Parameter wait: how long it may take before it is abandoned as `StoreError.unavailable` (the URL's
    ///   `wait_timeout` by default).
    @discardableResult
    func rows(_ query: PostgresQuery, wait: Duration? = nil) async throws -> [PostgresRandomAccessRow] {
        try await bounded(wait ?? url.requestWait) {
            do {
                return try await self.client.query(query, logger: self.logger).collect().map(PostgresRandomAccessRow.init)
            } catch {
                throw Self.unavailable(error)
            }
        }
    }

    static func constraint(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.constraintName]
    }
}

/// Resumes a continuation with whichever result comes first, even one that comes before the continuation exists
/// (cancellation can).
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var early: Result<T, any Error>?
    private var delivered = false

    /// Hands over the continuation; false when a result came first (delivered to it now).
    func attach(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let early = lock.withLock { () -> Result<T, any Error>? in
            if self.early == nil { self.continuation = continuation }
            return self.early
        }
        guard let early else { return true }
        continuation.resume(with: early)
        return false
    }

    /// - Returns: whether this result was the one delivered.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        let (first, continuation) = lock.withLock { () -> (Bool, CheckedContinuation<T, any Error>?) in
            guard !delivered else { return (false, nil) }
            delivered = true
            defer { self.continuation = nil }
            if self.continuation == nil { early = result }
            return (true, self.continuation)
        }
        continuation?.resume(with: result)
        return first
    }
}

/// Set once a bounded transaction's caller has stopped waiting for it.
/// Whether a transaction is still running, committing, or abandoned by its caller's timeout: the two ends that race
/// for it (the commit and the timeout) each take it from running, and only one of them can.
private final class AbandonedFlag: @unchecked Sendable {
    private enum State { case running, committing, abandoned }
    private let lock = NSLock()
    private var state = State.running

    /// Before the commit: false when the caller has already been told the transaction failed (it must roll back).
    func beginCommit() -> Bool {
        lock.withLock {
            guard state == .running else { return state == .committing }
            state = .committing
            return true
        }
    }

    /// At the timeout: false when the transaction is committing (its outcome is to be waited for).
    func abandon() -> Bool {
        lock.withLock {
            guard state == .running else { return state == .abandoned }
            state = .abandoned
            return true
        }
    }
}

/// A task that may be cancelled before it has started (the request was cancelled first): it then starts cancelled.
private final class CancellableWork: @unchecked Sendable {
    private let lock = NSLock()
    private var task: Task<Void, Never>?
    private var cancelled = false

    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task { await body() }
        let cancelNow = lock.withLock {
            self.task = task
            return cancelled
        }
        if cancelNow { task.cancel() }
    }

    func cancel() {
        let task = lock.withLock {
            cancelled = true
            return self.task
        }
        task?.cancel()
    }
}
