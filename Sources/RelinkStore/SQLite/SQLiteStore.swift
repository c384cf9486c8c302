import Foundation
import GRDB
import RelinkCore

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif
#if canImport(CSQLiteConfig)
import CSQLiteConfig
#endif

/// The embedded store: one SQLite file in WAL mode (concurrent readers, one writer), migrated when opened.
public final class SQLiteStore: RelinkStore, ImmediateLinkLookup, Sendable {
    let writer: any DatabaseWriter
    /// For a file: a connection per event loop for link lookups (nil in memory, where the writer is the only one).
    private let threadReaders: ThreadReaders?
    public let description: String

    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    public init(path: String) throws {
        Self.configureSQLite()
        // Created 0600: the database holds hashed addresses and link data, for this user only. SQLite gives its
        // -wal and -shm files the database file's mode.
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StoreError.unavailable("cannot create the database file \(path)")
            }
        }
        var configuration = Configuration()
        // Writes in this process take turns in GRDB's queue; only another process (a backup, `relink keys`) can hold
        // the lock. A request waits at most this long, then gets a 503 (`StoreError.unavailable`), never a 500.
        configuration.busyMode = .timeout(Self.busyTimeout)
        configuration.label = "relink"
        writer = try DatabasePool(path: path, configuration: configuration)
        description = "SQLite at \(path)"
        try Self.migrate(writer)
        try Self.recountPendingDeliveries(writer)
        threadReaders = ThreadReaders(path: path, configuration: configuration)
    }

    /// A private in-memory database, for tests and throwaway runs.
    public init(inMemory: Void = ()) throws {
        Self.configureSQLite()
        writer = try DatabaseQueue()
        threadReaders = nil
        description = "SQLite in memory"
        try Self.migrate(writer)
    }

    /// SQLite's process-wide settings, made once, before its first connection in the process (later it is too late,
    /// and they are only left as they were).
    private static let sqliteConfigured: Bool = {
        #if canImport(CSQLiteConfig)
        // With memory statistics on, every allocation SQLite makes takes one process-wide mutex, which the event
        // loops' lookups and the writer then wait for; nothing reads them
        // (docs/performance.md#sqlite-memory-statistics-off).
        return relink_sqlite_disable_memory_statistics() == SQLITE_OK
        #else
        return false
        #endif
    }()

    private static func configureSQLite() {
        _ = sqliteConfigured
    }

    /// Sets each webhook's kept count of pending deliveries to what its deliveries say, where they differ: the
    /// triggers follow every change Relink makes, but not every edit by hand in the sqlite3 shell (`INSERT OR REPLACE`
    /// deletes without them). One write per webhook, each a count of at most its own backlog.
    static func recountPendingDeliveries(_ writer: any DatabaseWriter) throws {
        let webhooks = try writer.read { db in try Int64.fetchAll(db, sql: "SELECT id FROM webhooks") }
        for id in webhooks {
            try writer.write { db in
                try db.execute(
                    sql: """
                        UPDATE webhooks SET pending = (SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'PENDING')
                        WHERE id = ?1 AND pending <> (SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?1 AND status = 'PENDING')
                        """, arguments: [id])
            }
        }
    }

    /// Brings the schema up to date, or (for the upgrade tests) only up to the migration named `target`, included.
    static func migrate(_ writer: any DatabaseWriter, upTo target: String? = nil) throws {
        let migrator = Self.migrator
        if try writer.read({ try migrator.hasBeenSuperseded($0) }) {
            // The migrations this build does not know (`appliedMigrations` lists only those it does): the message
            // names the newer one, not this build's last.
            let applied = try writer.read { try migrator.appliedIdentifiers($0) }
            let unknown = applied.subtracting(migrator.migrations).sorted { $0.localizedStandardCompare($1) == .orderedAscending }
            throw StoreError.schemaTooNew(found: unknown.last ?? "?", known: migrator.migrations.last ?? "?")
        }
        if let target {
            try migrator.migrate(writer, upTo: target)
        } else {
            try migrator.migrate(writer)
        }
    }

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("1-links-keys-events") { db in
            try db.execute(
                sql: """
                    CREATE TABLE links (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        domain TEXT NOT NULL,
                        code TEXT NOT NULL,
                        long_link TEXT NOT NULL,
                        parameters TEXT NOT NULL,
                        suffix_option TEXT NOT NULL,
                        idempotency_key TEXT,
                        disabled INTEGER NOT NULL DEFAULT 0,
                        expires_at DOUBLE,
                        created_at DOUBLE NOT NULL,
                        updated_at DOUBLE NOT NULL,
                        UNIQUE (domain, code)
                    );
                    CREATE UNIQUE INDEX links_on_idempotency_key ON links (idempotency_key);
                    CREATE INDEX links_on_project ON links (project_id, id);
                    CREATE TABLE api_keys (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        name TEXT,
                        key_hash TEXT NOT NULL UNIQUE,
                        key_prefix TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        revoked_at DOUBLE
                    );
                    CREATE TABLE event_counters (
                        link_id INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE,
                        day INTEGER NOT NULL,
                        platform TEXT NOT NULL,
                        event TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (link_id, day, platform, event)
                    ) WITHOUT ROWID;
                    """)
        }
        registerDeferredMigration(&migrator)
        return migrator
    }
}

// MARK: - Links

extension SQLiteStore {

    public func insertLink(_ draft: ShortLinkDraft, events: EventDeliveries<ShortLinkRecord>?) async throws -> ShortLinkRecord {
        let parameters = try StoreCoding.encode(draft.parameters)
        do {
            let (id, leftOut) = try await write { db in
                try db.execute(
                    sql: """
                        INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, idempotency_key,
                                           created_at, updated_at, archived, name, fetch_preview, rules, expires_at, max_clicks, expired_link)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: try Self.arguments(draft, parameters: parameters))
                let id = db.lastInsertedRowID
                try Self.clearCounters(of: id, in: db)
                guard let events else { return (id, 0) }
                return (id, try Self.enqueue(events.make(draft.record(id: id)), maximumPending: events.maximumPending, in: db))
            }
            if leftOut > 0 { events?.leftOut(leftOut) }
            return draft.record(id: id)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE {
            if error.message?.contains("idempotency_key") == true { throw StoreError.idempotencyKeyTaken }
            throw StoreError.codeTaken(domain: draft.domain, code: draft.code)
        }
    }

    /// Clears counters stored under a new link's id, in its insert's transaction: an id reused (SQLite reuses the
    /// largest after it is deleted, and a restore may bring old counters) inherits nothing.
    static func clearCounters(of linkId: Int64, in db: Database) throws {
        for table in ["event_counters", "variant_counters", "confidence_counters"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE link_id = ?").execute(arguments: [linkId])
        }
    }

    static func arguments(_ draft: ShortLinkDraft, parameters: String) throws -> StatementArguments {
        [
            draft.projectId, draft.domain, draft.code, draft.longLink, parameters, draft.suffixOption.rawValue, draft.idempotencyKey,
            draft.createdAt.timeIntervalSince1970, draft.createdAt.timeIntervalSince1970, draft.archived, draft.name,
            draft.fetchPreview, try StoreCoding.encode(rules: draft.rules), draft.expiresAt?.timeIntervalSince1970, draft.maxClicks,
            draft.expiredLink,
        ]
    }

    public func importLinks(_ drafts: [ShortLinkDraft]) async throws -> Set<String> {
        let rows = try drafts.map { ($0, try StoreCoding.encode($0.parameters)) }
        return try await write { db in
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, idempotency_key,
                                       created_at, updated_at, archived, name, fetch_preview, rules, expires_at, max_clicks, expired_link)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (domain, code) DO NOTHING
                    """)
            var skipped: Set<String> = []
            for (draft, parameters) in rows {
                try statement.execute(arguments: try Self.arguments(draft, parameters: parameters))
                if db.changesCount == 0 {
                    skipped.insert("\(draft.domain)\t\(draft.code)")
                } else {
                    try Self.clearCounters(of: db.lastInsertedRowID, in: db)
                }
            }
            return skipped
        }
    }

    public func link(domain: String, code: String) async throws -> ShortLinkRecord? {
        try linkImmediately(domain: domain, code: code)
    }

    public func linkImmediately(domain: String, code: String) throws -> ShortLinkRecord? {
        // A click on a link not in memory reads here, on the calling thread: one indexed row from SQLite's page cache
        // takes microseconds, less than handing the read to GRDB's reader queues and back (see docs/performance.md).
        do {
            return try linkNow(domain: domain, code: code)
        } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR && (error.message ?? "").contains("JSON") {
            // SQLite's json_each refusing the stored parameters: the row is damaged, a store problem (503).
            throw StoreError.unavailable("the stored parameters of \(domain)/\(code) are not JSON")
        } catch let error as DatabaseError {
            throw Self.unavailable(error)
        }
    }

    /// A synchronous read on the calling thread's own connection (else GRDB's pool), without a transaction around it
    /// (one SELECT is its own), with the statement prepared once per connection. The record shares the caller's
    /// domain string, so a million cached links do not each hold a copy.
    private func linkNow(domain: String, code: String) throws -> ShortLinkRecord? {
        if let reader = threadReaders?.reader() {
            return try reader.inDatabase { db in try link(in: db, domain: domain, code: code) }
        }
        return try writer.unsafeRead { db in try link(in: db, domain: domain, code: code) }
    }

    private func link(in db: Database, domain: String, code: String) throws -> ShortLinkRecord? {
        let statement = try db.cachedStatement(sql: Self.linkWithParameters)
        try statement.setArguments([domain, code])
        // Stepped here, not through a GRDB cursor (see `IndexedRow`), and reset when done, which ends the read.
        let sqliteStatement = statement.sqliteStatement
        defer { sqlite3_reset(sqliteStatement) }
        let row = IndexedRow(statement: sqliteStatement, positions: Self.linkColumnPositions)
        func step() throws -> Bool { try IndexedRow.step(statement, arguments: [domain, code], in: db) }
        guard try step() else { return nil }
        guard row.text(at: Self.parametersContainer) == "object" else {
            throw StoreError.unavailable("the stored parameters of \(domain)/\(code) are not link parameters")
        }
        if row.integer(at: Self.parametersEscapeNUL) != 0 {
            // SQLite's JSON text ends at an escaped NUL (and text is read up to one): Foundation decodes these.
            var record = try ShortLinkRecord(row: row)
            record.domain = domain
            return record
        }
        // The link's columns come with its first parameter (read before the statement steps on); every further row
        // is one more parameter.
        var record = try ShortLinkRecord(row: row, parameters: LinkParameters())
        record.domain = domain
        // A key given twice (only a hand-edited row has one) keeps its first value, as Foundation's decoder does.
        var seen: Set<LinkParameter> = []
        repeat {
            if let name = row.text(at: Self.parameterName) {
                guard let parameter = LinkParameter(name: name), row.text(at: Self.parameterType) == "text",
                    let value = row.text(at: Self.parameterValue)
                else {
                    throw StoreError.unavailable("the stored parameters of \(domain)/\(code) are not link parameters")
                }
                if seen.insert(parameter).inserted { record.parameters[parameter] = value }
            }
        } while try step()
        return record
    }

    /// A link and its parameters, one row per parameter, the JSON decoded by SQLite: on a miss, Foundation's
    /// JSONDecoder cost more than finding the row. A link without parameters is one row, its `name` NULL.
    /// The link's row is made once, in a subquery of its own (its `LIMIT` keeps SQLite from folding it into the
    /// join; the key is unique anyway): in a plain join SQLite worked out `json_type` and `instr` again for every
    /// parameter row, over the whole text each time, and every row carried a copy of the text, so a hand-edited row
    /// of thousands of keys held its event loop for seconds (docs/performance.md#parameters-decoded-by-sqlite).
    private static let linkWithParameters = """
        SELECT \(linkColumns.map { $0 == "parameters" ? SQLiteStore.parametersForFoundation : "link.\($0)" }.joined(separator: ", ")),
        parameter.key AS name, parameter.value AS value, parameter.type AS type, link.container, link.escapedNUL
        FROM (
            SELECT \(linkColumns.map { "links.\($0)" }.joined(separator: ", ")),
            json_type(links.parameters) AS container, instr(links.parameters, '\\u0000') AS escapedNUL
            FROM links WHERE links.domain = ? AND links.code = ? LIMIT 1
        ) AS link LEFT JOIN json_each(link.parameters) AS parameter
        """
    /// The parameters' text only for a row Foundation decodes (an escaped NUL, or an `instr` that found no text):
    /// every result row would otherwise carry a copy of the whole text.
    private static let parametersForFoundation = "CASE WHEN link.escapedNUL IS NOT 0 THEN link.parameters END AS parameters"
    private static let linkColumnPositions = IndexedRow.positions(of: ShortLinkRecord.columns)
    /// The record's columns in the order the lookup selects them (their positions).
    private static let linkColumns = linkColumnPositions.sorted { $0.value < $1.value }.map(\.key)
    private static let parameterName = Int32(linkColumnPositions.count)
    private static let parameterValue = parameterName + 1
    private static let parameterType = parameterName + 2
    private static let parametersContainer = parameterName + 3
    private static let parametersEscapeNUL = parameterName + 4

    public func link(idempotencyKey: String) async throws -> ShortLinkRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(ShortLinkRecord.columns) FROM links WHERE idempotency_key = ?", arguments: [idempotencyKey])
                .map(ShortLinkRecord.init(row:))
        }
    }

    public func links(projectId: String, matching: String?, beforeId: Int64?, limit: Int) async throws -> [ShortLinkRecord] {
        try await read { db in
            guard let pattern = matching.flatMap(LinkSearch.likePattern) else {
                return try Row.fetchAll(
                    db, sql: "SELECT \(ShortLinkRecord.columns) FROM links WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
                    arguments: [projectId, beforeId ?? Int64.max, limit]
                ).map(ShortLinkRecord.init(row:))
            }
            // SQLite's LIKE ignores ASCII case.
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(ShortLinkRecord.columns) FROM links WHERE project_id = :project AND id < :before
                    AND (code LIKE :pattern ESCAPE '\\' OR long_link LIKE :pattern ESCAPE '\\' OR long_link LIKE :stored ESCAPE '\\'
                        OR name LIKE :pattern ESCAPE '\\')
                    ORDER BY id DESC LIMIT :limit
                    """,
                arguments: [
                    "project": projectId, "before": beforeId ?? Int64.max, "pattern": pattern,
                    "stored": matching.flatMap(LinkSearch.storedLongLinkPattern) ?? pattern, "limit": limit,
                ]
            ).map(ShortLinkRecord.init(row:))
        }
    }

    public func updateLink(
        id: Int64, events: EventDeliveries<ShortLinkRecord>?, _ change: @escaping @Sendable (ShortLinkRecord) throws -> ShortLinkRecord?
    ) async throws -> (stored: ShortLinkRecord, saved: ShortLinkRecord?) {
        // Read and written in one write transaction: SQLite has one writer at a time, so other changes of the link
        // wait for this one and then read what it wrote.
        let (stored, saved, leftOut) = try await write { db -> (ShortLinkRecord, ShortLinkRecord?, Int) in
            guard let row = try Row.fetchOne(db, sql: "SELECT \(ShortLinkRecord.columns) FROM links WHERE id = ?", arguments: [id]) else {
                throw StoreError.notFound
            }
            let stored = try ShortLinkRecord(row: row)
            guard let link = try change(stored) else { return (stored, nil, 0) }
            var updated = link.forUpdate()
            updated.id = stored.id
            try db.execute(
                sql: """
                    UPDATE links SET long_link = ?, parameters = ?, disabled = ?, expires_at = ?, updated_at = ?, archived = ?, name = ?,
                        fetch_preview = ?, rules = ?, max_clicks = ?, expired_link = ?, idempotency_key = ?
                    WHERE id = ?
                    """,
                arguments: [
                    updated.longLink, try StoreCoding.encode(updated.parameters), updated.disabled, updated.expiresAt?.timeIntervalSince1970,
                    updated.updatedAt.timeIntervalSince1970, updated.archived, updated.name, updated.fetchPreview,
                    try StoreCoding.encode(rules: updated.rules), updated.maxClicks, updated.expiredLink, updated.idempotencyKey, updated.id,
                ])
            guard db.changesCount == 1 else { throw StoreError.notFound }
            guard let events else { return (stored, updated, 0) }
            return (stored, updated, try Self.enqueue(events.make(updated), maximumPending: events.maximumPending, in: db))
        }
        if leftOut > 0 { events?.leftOut(leftOut) }
        return (stored, saved)
    }

    public func savePreview(linkId: Int64, preview: PagePreview) async throws {
        let text = try StoreCoding.encode(preview: preview)
        let changed = try await write { db in
            try db.execute(
                sql: "UPDATE links SET preview = ?, preview_fetched_at = ? WHERE id = ?",
                arguments: [text, preview.fetchedAt.timeIntervalSince1970, linkId])
            return db.changesCount
        }
        guard changed == 1 else { throw StoreError.notFound }
    }

    public func linksDueForPreview(projectIds: [String], fetchedBefore: Date, limit: Int) async throws -> [ShortLinkRecord] {
        try await read { db in
            let projects = projectIds.isEmpty ? "" : " OR project_id IN (\(Array(repeating: "?", count: projectIds.count).joined(separator: ", ")))"
            var arguments = StatementArguments(projectIds)
            arguments += [fetchedBefore.timeIntervalSince1970, limit]
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT \(ShortLinkRecord.columns) FROM links
                    WHERE (fetch_preview = 1\(projects)) AND disabled = 0 AND (preview_fetched_at IS NULL OR preview_fetched_at < ?)
                    ORDER BY preview_fetched_at IS NOT NULL, preview_fetched_at, id LIMIT ?
                    """,
                arguments: arguments
            ).map(ShortLinkRecord.init(row:))
        }
    }

    public func countLinksWithCountryRules() async throws -> Int {
        try await read { db in
            try Int.fetchOne(db, sql: #"SELECT COUNT(*) FROM links WHERE rules LIKE '%"countries":["%'"#) ?? 0
        }
    }
}

// MARK: - API keys

extension SQLiteStore {

    public func insertAPIKey(
        projectId: String, name: String?, keyHash: String, keyPrefix: String, scope: APIKeyScope
    ) async throws
        -> APIKeyRecord
    {
        let now = StoreCoding.stored(Date())
        let id = try await write { db in
            try db.execute(
                sql: "INSERT INTO api_keys (project_id, name, key_hash, key_prefix, created_at, scope) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [projectId, name, keyHash, keyPrefix, now.timeIntervalSince1970, scope.rawValue])
            return db.lastInsertedRowID
        }
        return APIKeyRecord(
            id: id, projectId: projectId, name: name, keyHash: keyHash, keyPrefix: keyPrefix, createdAt: now, revokedAt: nil, scope: scope)
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await read { db in
            try Row.fetchOne(db, sql: "SELECT \(APIKeyRecord.columns) FROM api_keys WHERE key_hash = ?", arguments: [hash]).map(
                APIKeyRecord.init(row:))
        }
    }

    public func apiKeys(projectId: String?) async throws -> [APIKeyRecord] {
        try await read { db in
            if let projectId {
                return try Row.fetchAll(
                    db, sql: "SELECT \(APIKeyRecord.columns) FROM api_keys WHERE project_id = ? ORDER BY id", arguments: [projectId]
                )
                .map(APIKeyRecord.init(row:))
            }
            return try Row.fetchAll(db, sql: "SELECT \(APIKeyRecord.columns) FROM api_keys ORDER BY id").map(APIKeyRecord.init(row:))
        }
    }

    public func revokeAPIKey(id: Int64) async throws -> APIKeyRecord? {
        let now = Date().timeIntervalSince1970
        return try await write { db in
            try db.execute(
                sql: "UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?", arguments: [now, id])
            try db.execute(sql: "DELETE FROM console_sessions WHERE key_id = ?", arguments: [id])
            return try Row.fetchOne(db, sql: "SELECT \(APIKeyRecord.columns) FROM api_keys WHERE id = ?", arguments: [id]).map(
                APIKeyRecord.init(row:))
        }
    }
}

// MARK: - Events

extension SQLiteStore {
    public func addEventCounts(_ counts: [EventCounterKey: Int64]) async throws {
        guard !counts.isEmpty else { return }
        do {
            try await writeEventCounts(counts)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_CONSTRAINT_FOREIGNKEY {
            // Which links are missing, for the writer to drop their counters (only asked when one is).
            let linkIds = Set(counts.keys.map(\.linkId)).sorted()
            let missing = try await read { db in
                try linkIds.filter { try !Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM links WHERE id = ?)", arguments: [$0])! }
            }
            guard !missing.isEmpty else { throw error }
            throw CountersOfMissingLink(linkIds: Array(missing.prefix(1000)))
        }
    }

    private func writeEventCounts(_ counts: [EventCounterKey: Int64]) async throws {
        try await write { db in
            // Split and sorted on the writer's thread: a second's counters spread over a million links take
            // milliseconds to sort.
            let (totals, variants, confidences) = EventCounterKey.split(counts)
            // Bound by hand (`SteppedStatement`): a million links clicked at random make every counter a row.
            var statement = SteppedStatement(
                try db.cachedStatement(
                    sql: """
                        INSERT INTO event_counters (link_id, day, platform, event, count) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (link_id, day, platform, event) DO UPDATE SET count = count + excluded.count
                        """))
            // In the primary key's order: a batch of counters spread over many links then visits each B-tree page
            // once, instead of reading a page back from disk for nearly every row (a million links clicked at random).
            let inKeyOrder = totals.sorted { EventCounterKey.inKeyOrder($0.key, $1.key) }
            for (key, count) in inKeyOrder {
                statement.bind(key.linkId)
                statement.bind(key.day)
                statement.bind(key.platform.rawValue)
                statement.bind(key.event.rawValue)
                statement.bind(count)
                try statement.execute(in: db)
            }
            if !confidences.isEmpty {
                let perConfidence = try db.cachedStatement(
                    sql: """
                        INSERT INTO confidence_counters (link_id, day, confidence, count) VALUES (?, ?, ?, ?)
                        ON CONFLICT (link_id, day, confidence) DO UPDATE SET count = count + excluded.count
                        """)
                for (key, count) in confidences {
                    try perConfidence.execute(arguments: [key.linkId, key.day, key.confidence.rawValue, count])
                }
            }
            guard !variants.isEmpty else { return }
            let perVariant = try db.cachedStatement(
                sql: """
                    INSERT INTO variant_counters (link_id, day, variant, platform, event, count) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (link_id, day, variant, platform, event) DO UPDATE SET count = count + excluded.count
                    """)
            for (key, count) in variants {
                try perVariant.execute(arguments: [key.linkId, key.day, key.variant ?? "", key.platform.rawValue, key.event.rawValue, count])
            }
        }
    }

    public func clickCount(linkId: Int64) async throws -> Int64 {
        try await read { db in
            try Int64.fetchOne(
                db, sql: "SELECT COALESCE(SUM(count), 0) FROM event_counters WHERE link_id = ? AND event = 'CLICK' AND platform != 'CRAWLER'",
                arguments: [linkId]) ?? 0
        }
    }

    public func variantEventCounts(linkId: Int64, fromDay: Int) async throws -> [VariantEventCount] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT variant, platform, event, SUM(count) AS total FROM variant_counters
                    WHERE link_id = ? AND day >= ? GROUP BY variant, platform, event HAVING total > 0 ORDER BY variant, platform, event
                    """,
                arguments: [linkId, fromDay]
            ).compactMap { row in
                guard let platform = StatsPlatform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else {
                    return nil
                }
                return VariantEventCount(variant: row["variant"], platform: platform, event: event, count: row["total"])
            }
        }
    }

    public func eventCounts(linkId: Int64, fromDay: Int) async throws -> [EventCount] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT platform, event, SUM(count) AS total FROM event_counters
                    WHERE link_id = ? AND day >= ? GROUP BY platform, event HAVING total > 0 ORDER BY platform, event
                    """,
                arguments: [linkId, fromDay]
            ).compactMap { row in
                guard let platform = StatsPlatform(rawValue: row["platform"]), let event = LinkEvent(rawValue: row["event"]) else {
                    return nil
                }
                return EventCount(platform: platform, event: event, count: row["total"])
            }
        }
    }
}

// MARK: - Access

extension SQLiteStore {
    /// How long a request waits for a database another process has locked.
    static let busyTimeout: TimeInterval = 1

    /// `writer.write`, with the database's own trouble as `StoreError.unavailable` (see `unavailable(_:)`).
    ///
    /// Writes take turns; the time a write waited for its turn counts toward the second it may wait for another
    /// process's lock, so a queue of writes behind a locked database fails within about a second each, instead of
    /// each waiting its full second after the one before.
    func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let start = ContinuousClock.now
        do {
            return try await writer.writeWithoutTransaction { db in
                let waited = ContinuousClock.now - start
                let remaining = Int((Self.busyTimeout - Self.seconds(waited)) * 1000)
                guard remaining > 0 else {
                    throw StoreError.unavailable("the SQLite database is busy: a write waited \(waited) for its turn")
                }
                sqlite3_busy_timeout(db.sqliteConnection, Int32(remaining))
                defer { sqlite3_busy_timeout(db.sqliteConnection, Int32(Self.busyTimeout * 1000)) }
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try updates(db)
                    return .commit
                }
                return result!
            }
        } catch let error as DatabaseError {
            throw Self.unavailable(error)
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `writer.read`, with the database's own trouble as `StoreError.unavailable` (see `unavailable(_:)`).
    func read<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writer.read(value)
        } catch let error as DatabaseError {
            throw Self.unavailable(error)
        }
    }

    /// A database that is locked, full, unreadable or unwritable is `StoreError.unavailable` (503, retry later),
    /// never a 500; constraint errors and the like are the caller's to handle, unchanged.
    static func unavailable(_ error: DatabaseError) -> any Error {
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            StoreError.unavailable("the SQLite database is locked by another process (\(error.resultCode))")
        case .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_CORRUPT, .SQLITE_NOTADB, .SQLITE_PROTOCOL,
            .SQLITE_NOMEM, .SQLITE_PERM:
            StoreError.unavailable("the SQLite database cannot be used: \(error.resultCode) \(error.message ?? "")")
        default:
            error
        }
    }
}
