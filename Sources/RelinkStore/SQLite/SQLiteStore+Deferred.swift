import Foundation
import GRDB
import RelinkCore

#if canImport(GRDBSQLite)
import GRDBSQLite
#else
import SQLite3
#endif

extension SQLiteStore {
    static func registerDeferredMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("2-deferred-links") { db in
            try db.execute(
                sql: """
                    CREATE TABLE pending_clicks (
                        id TEXT PRIMARY KEY NOT NULL,
                        project_id TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        link_id INTEGER,
                        requested_link TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        address_hash TEXT,
                        network_hash TEXT,
                        ip_version INTEGER,
                        os_version TEXT,
                        device TEXT,
                        languages TEXT NOT NULL,
                        screen TEXT,
                        time_zone TEXT,
                        claimed_at DOUBLE,
                        confidence TEXT
                    );
                    CREATE INDEX pending_clicks_by_address ON pending_clicks (project_id, address_hash, created_at);
                    CREATE INDEX pending_clicks_by_network ON pending_clicks (project_id, network_hash);
                    CREATE INDEX pending_clicks_by_device ON pending_clicks (project_id, os_version, device);
                    CREATE INDEX pending_clicks_by_age ON pending_clicks (project_id, created_at);
                    CREATE TABLE install_claims (
                        project_id TEXT NOT NULL,
                        install_id TEXT NOT NULL,
                        response TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        PRIMARY KEY (project_id, install_id)
                    );
                    CREATE TABLE settings (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL);
                    """)
        }
        migrator.registerMigration("3-click-app") { db in
            // Which app a click was sent to install: claims match only clicks of their own app.
            try db.execute(sql: "ALTER TABLE pending_clicks ADD COLUMN app_id TEXT")
            // Candidates are found by address or network only now (never by OS and device alone).
            try db.execute(sql: "DROP INDEX pending_clicks_by_device")
        }
        migrator.registerMigration("4-clicked-links") { db in
            // A long link is kept once for all its clicks (see `ClickedLink`).
            try db.execute(
                sql: """
                    CREATE TABLE clicked_links (
                        project_id TEXT NOT NULL, digest TEXT NOT NULL, link TEXT NOT NULL, last_clicked_at DOUBLE NOT NULL,
                        PRIMARY KEY (project_id, digest)
                    );
                    ALTER TABLE pending_clicks ADD COLUMN link_digest TEXT;
                    """)
        }
        migrator.registerMigration("5-shadow-matches") { db in
            // Live precision: what the fingerprint matcher would have said for claims settled by their token.
            try db.execute(
                sql: """
                    CREATE TABLE shadow_matches (
                        project_id TEXT NOT NULL, day INTEGER NOT NULL, confidence TEXT NOT NULL, same_click INTEGER NOT NULL,
                        count INTEGER NOT NULL, PRIMARY KEY (project_id, day, confidence, same_click)
                    )
                    """)
        }
        migrator.registerMigration("6-candidate-indexes") { db in
            // Candidates are looked up by address and by network, each within the window: both indexes end with the
            // time, so a claim reads the clicks of its address and network only, however many the project keeps.
            try db.execute(
                sql: """
                    DROP INDEX pending_clicks_by_network;
                    CREATE INDEX pending_clicks_by_network ON pending_clicks (project_id, network_hash, created_at);
                    """)
        }
        migrator.registerMigration("7-clicks-by-link") { db in
            // A short link's own clicks, newest first (`relink deferred test` watches them).
            try db.execute(sql: "CREATE INDEX pending_clicks_by_link ON pending_clicks (link_id, created_at)")
        }
        migrator.registerMigration("8-imported-links") { db in
            // Links imported from Firebase keep their archived flag and name.
            try db.execute(
                sql: """
                    ALTER TABLE links ADD COLUMN archived INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE links ADD COLUMN name TEXT;
                    """)
        }
        migrator.registerMigration("9-page-previews") { db in
            // A link's crawler card filled from its destination page, fetched off the click path and refreshed.
            try db.execute(
                sql: """
                    ALTER TABLE links ADD COLUMN fetch_preview INTEGER NOT NULL DEFAULT 0;
                    ALTER TABLE links ADD COLUMN preview TEXT;
                    ALTER TABLE links ADD COLUMN preview_fetched_at DOUBLE;
                    """)
        }
        migrator.registerMigration("10-link-rules") { db in
            // A link's rules and A/B variants, as JSON.
            try db.execute(sql: "ALTER TABLE links ADD COLUMN rules TEXT")
        }
        migrator.registerMigration("11-variant-counters") { db in
            // Per-variant counters beside the totals (event_counters keeps every event, variants summed), and the
            // variant each kept click was given, so its install counts for it.
            try db.execute(
                sql: """
                    CREATE TABLE variant_counters (
                        link_id INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE,
                        day INTEGER NOT NULL,
                        variant TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        event TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (link_id, day, variant, platform, event)
                    ) WITHOUT ROWID;
                    ALTER TABLE pending_clicks ADD COLUMN variant TEXT;
                    """)
        }
        migrator.registerMigration("12-click-limits") { db in
            // A link's click limit and where clicks go once it is over.
            try db.execute(
                sql: """
                    ALTER TABLE links ADD COLUMN max_clicks INTEGER;
                    ALTER TABLE links ADD COLUMN expired_link TEXT;
                    """)
        }
        migrator.registerMigration("13-webhooks") { db in
            // Subscriptions, and the outbox of deliveries: written before anything is sent, leased by one sender.
            try db.execute(
                sql: """
                    CREATE TABLE webhooks (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        project_id TEXT NOT NULL,
                        url TEXT NOT NULL,
                        events TEXT NOT NULL,
                        secret TEXT NOT NULL,
                        created_at DOUBLE NOT NULL
                    );
                    CREATE INDEX webhooks_by_project ON webhooks (project_id, id);
                    CREATE TABLE webhook_deliveries (
                        id TEXT PRIMARY KEY NOT NULL,
                        webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
                        event TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0,
                        next_attempt_at DOUBLE NOT NULL,
                        status TEXT NOT NULL,
                        last_status INTEGER,
                        last_error TEXT,
                        delivered_at DOUBLE,
                        leased_until DOUBLE
                    );
                    CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
                    CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at);
                    """)
        }
        migrator.registerMigration("14-console") { db in
            // Console-only keys, console sessions (under their id's hash), installs per confidence, and project-wide
            // statistics read by day.
            try db.execute(
                sql: """
                    ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'API';
                    CREATE TABLE console_sessions (
                        id_hash TEXT PRIMARY KEY NOT NULL,
                        key_id INTEGER NOT NULL,
                        data TEXT NOT NULL,
                        created_at DOUBLE NOT NULL,
                        expires_at DOUBLE NOT NULL
                    );
                    CREATE INDEX console_sessions_by_key ON console_sessions (key_id, created_at);
                    CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at);
                    CREATE TABLE confidence_counters (
                        link_id INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE,
                        day INTEGER NOT NULL,
                        confidence TEXT NOT NULL,
                        count INTEGER NOT NULL,
                        PRIMARY KEY (link_id, day, confidence)
                    ) WITHOUT ROWID;
                    CREATE INDEX event_counters_by_day ON event_counters (day, link_id);
                    """)
        }
        migrator.registerMigration("15-address-activity") { db in
            // How busy a claimer's address is, counted over its latest clicks from the index alone: a crowded
            // address's latest clicks lie all over the table.
            try db.execute(
                sql: """
                    DROP INDEX pending_clicks_by_address;
                    CREATE INDEX pending_clicks_by_address ON pending_clicks (project_id, address_hash, created_at, platform, os_version, device);
                    """)
        }
        migrator.registerMigration("16-counters-kept-by-triggers") { db in
            // The foreign keys stay here (PostgreSQL dropped its own); the trigger adds what they do not cover: a
            // link deleted with foreign keys off (the sqlite3 shell's default) takes its counters along.
            try db.execute(
                sql: """
                    CREATE TRIGGER links_clear_counters_on_delete AFTER DELETE ON links BEGIN
                        DELETE FROM event_counters WHERE link_id = OLD.id;
                        DELETE FROM variant_counters WHERE link_id = OLD.id;
                        DELETE FROM confidence_counters WHERE link_id = OLD.id;
                    END;
                    """)
        }
        migrator.registerMigration("17-pending-deliveries-by-webhook") { db in
            // A webhook's pending deliveries are counted before more are written (their cap), from the index alone.
            try db.execute(sql: "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'PENDING'")
        }
        migrator.registerMigration("18-webhook-lease-indexes") { db in
            // A lease reads each webhook's first due deliveries and the leased ones from indexes, whatever the backlog:
            // it runs again each time a delivery ends. The first also counts a webhook's pending ones (its cap).
            try db.execute(
                sql: """
                    DROP INDEX webhook_deliveries_pending;
                    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'PENDING';
                    CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (leased_until) WHERE status = 'PENDING';
                    """)
        }
        migrator.registerMigration("19-purge-by-age") { db in
            // The purge finds what aged out by index, in batches, instead of reading every kept link and claim of the
            // project (a kept long link is kilobytes) while it holds the writer.
            try db.execute(
                sql: """
                    CREATE INDEX clicked_links_by_age ON clicked_links (project_id, last_clicked_at);
                    CREATE INDEX install_claims_by_age ON install_claims (project_id, created_at);
                    """)
        }
        migrator.registerMigration("20-webhooks-removed-at-once-and-pending-kept") { db in
            // A removed webhook is marked, and answered at once; its deliveries (millions for a busy one) go after.
            // Each webhook's pending deliveries are counted in its row, kept by triggers through every change: the cap
            // is checked inside the writes that send events, and counting a full webhook's 100,000 index entries there
            // held SQLite's one writer for about 7 ms a webhook.
            try db.execute(
                sql: """
                    ALTER TABLE webhooks ADD COLUMN deleted_at DOUBLE;
                    ALTER TABLE webhooks ADD COLUMN pending INTEGER NOT NULL DEFAULT 0;
                    UPDATE webhooks SET pending = (
                        SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id AND d.status = 'PENDING');
                    CREATE TRIGGER webhook_deliveries_pending_added AFTER INSERT ON webhook_deliveries WHEN NEW.status = 'PENDING'
                    BEGIN UPDATE webhooks SET pending = pending + 1 WHERE id = NEW.webhook_id; END;
                    CREATE TRIGGER webhook_deliveries_pending_changed AFTER UPDATE OF status, webhook_id ON webhook_deliveries
                        WHEN (OLD.status = 'PENDING') <> (NEW.status = 'PENDING') OR OLD.webhook_id <> NEW.webhook_id
                    BEGIN
                        UPDATE webhooks SET pending = pending - 1 WHERE id = OLD.webhook_id AND OLD.status = 'PENDING';
                        UPDATE webhooks SET pending = pending + 1 WHERE id = NEW.webhook_id AND NEW.status = 'PENDING';
                    END;
                    CREATE TRIGGER webhook_deliveries_pending_deleted AFTER DELETE ON webhook_deliveries WHEN OLD.status = 'PENDING'
                    BEGIN UPDATE webhooks SET pending = pending - 1 WHERE id = OLD.webhook_id; END;
                    """)
        }
    }

    private static let clickPositions = IndexedRow.Positions(uniqueKeysWithValues: ClickedLink.clickColumns.enumerated().map { ($1, $0) })

    /// The pending clicks `statement` selects (`ClickedLink.selectClicks`), stepped by hand and read by position: a
    /// claim reads up to 400 of them, and GRDB's `Row` lowercased each column's name for every value read (a seventh
    /// of a crowded address's claim).
    static func pendingClicks(_ statement: Statement, arguments: StatementArguments, in db: Database) throws -> [PendingClick] {
        try statement.setArguments(arguments)
        let sqliteStatement = statement.sqliteStatement
        defer { sqlite3_reset(sqliteStatement) }
        let row = IndexedRow(statement: sqliteStatement, positions: clickPositions)
        var clicks: [PendingClick] = []
        while try IndexedRow.step(statement, arguments: arguments, in: db) { clicks.append(try PendingClick(row: row)) }
        return clicks
    }

    public func linkClicks(linkId: Int64, limit: Int) async throws -> [PendingClick] {
        try await read { db in
            try Self.pendingClicks(
                try db.cachedStatement(sql: ClickedLink.selectClicks + " WHERE p.link_id = ? ORDER BY p.created_at DESC LIMIT ?"),
                arguments: [linkId, limit], in: db)
        }
    }

    public func recordShadowMatch(projectId: String, day: Int, confidence: AttributionConfidence?, sameClick: Bool) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO shadow_matches (project_id, day, confidence, same_click, count) VALUES (?, ?, ?, ?, 1)
                    ON CONFLICT (project_id, day, confidence, same_click) DO UPDATE SET count = count + 1
                    """, arguments: [projectId, day, ShadowMatchCount.label(confidence), sameClick ? 1 : 0])
        }
    }

    public func shadowMatches(projectId: String, fromDay: Int) async throws -> [ShadowMatchCount] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT confidence, same_click, SUM(count) AS total FROM shadow_matches
                    WHERE project_id = ? AND day >= ? GROUP BY confidence, same_click ORDER BY confidence, same_click
                    """, arguments: [projectId, fromDay]
            ).map { row in
                ShadowMatchCount(
                    confidence: ShadowMatchCount.confidence(label: row["confidence"]), sameClick: row["same_click"] as Int64 != 0,
                    count: row["total"])
            }
        }
    }

    public func insertPendingClicks(_ clicks: [PendingClick]) async throws {
        guard !clicks.isEmpty else { return }
        let links = ClickedLink.distinctLongLinks(of: clicks)
        let now = Date().timeIntervalSince1970
        try await write { db in
            let link = try db.cachedStatement(
                sql: """
                    INSERT INTO clicked_links (project_id, digest, link, last_clicked_at) VALUES (?, ?, ?, ?)
                    ON CONFLICT (project_id, digest) DO UPDATE SET last_clicked_at = excluded.last_clicked_at
                    """)
            for (key, text) in links { try link.execute(arguments: [key.projectId, key.digest, text, now]) }
            // Each row bound by hand (`SteppedStatement`), on the writer's thread.
            var insert = SteppedStatement(
                try db.cachedStatement(
                    sql: """
                        INSERT OR IGNORE INTO pending_clicks (id, project_id, platform, link_id, app_id, requested_link, link_digest,
                            created_at, address_hash, network_hash, ip_version, os_version, device, languages, screen, time_zone, variant)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """))
            for click in clicks {
                let f = click.fingerprint
                let (link, digest) = ClickedLink.stored(click.requestedLink)
                insert.bind(click.id)
                insert.bind(click.projectId)
                insert.bind(click.platform.rawValue)
                insert.bind(click.linkId)
                insert.bind(click.appId)
                insert.bind(link)
                insert.bind(digest)
                insert.bind(click.createdAt.timeIntervalSince1970)
                insert.bind(f.addressHash)
                insert.bind(f.networkHash)
                insert.bind(f.ipVersion?.rawValue)
                insert.bind(f.osVersion)
                insert.bind(f.device)
                insert.bind(StoreCoding.encode(languages: f.languages))
                insert.bind(f.screen)
                insert.bind(f.timeZone)
                insert.bind(click.variant)
                try insert.execute(in: db)
            }
        }
    }

    public func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE pending_clicks SET screen = COALESCE(?, screen), time_zone = COALESCE(?, time_zone),
                        languages = CASE WHEN ? = '' THEN languages ELSE ? END
                    WHERE id = ? AND claimed_at IS NULL
                    """,
                arguments: [screen, timeZone, StoreCoding.encode(languages: languages), StoreCoding.encode(languages: languages), clickId])
            return db.changesCount == 1
        }
    }

    public func pendingClick(id: String) async throws -> PendingClick? {
        try await read { db in
            try Self.pendingClicks(try db.cachedStatement(sql: ClickedLink.selectClicks + " WHERE p.id = ?"), arguments: [id], in: db).first
        }
    }

    public func candidateClicks(
        projectId: String, platform: AppPlatform, appId: String, since: Date, until: Date, fingerprint: DeviceFingerprint,
        bounds: CandidateBounds
    ) async throws -> [PendingClick] {
        guard fingerprint.addressHash != nil || fingerprint.networkHash != nil else { return [] }
        return try await read { db in
            try Self.pendingClicks(
                try db.cachedStatement(
                    sql: """
                        \(ClickedLink.selectClicks)
                        WHERE p.rowid IN (
                            SELECT rowid FROM (
                                SELECT rowid FROM pending_clicks WHERE project_id = ? AND address_hash = ? AND created_at BETWEEN ? AND ?
                                ORDER BY created_at DESC LIMIT ?)
                            UNION
                            SELECT rowid FROM (
                                SELECT rowid FROM pending_clicks WHERE project_id = ? AND network_hash = ? AND created_at BETWEEN ? AND ?
                                ORDER BY created_at DESC LIMIT ?)
                        )
                          AND p.platform = ? AND p.app_id = ? AND (p.claimed_at IS NULL OR p.confidence = 'WEAK')
                        ORDER BY p.created_at DESC
                        """),
                arguments: [
                    projectId, fingerprint.addressHash, since.timeIntervalSince1970, until.timeIntervalSince1970, bounds.perAddress, projectId,
                    fingerprint.networkHash, since.timeIntervalSince1970, until.timeIntervalSince1970, bounds.perNetwork, platform.rawValue, appId,
                ], in: db)
        }
    }

    public func addressActivity(
        projectId: String, addressHash: String, since: Date, recentSince: Date, platform: AppPlatform, fingerprint: DeviceFingerprint,
        limit: Int
    ) async throws -> AddressActivity {
        try await read { db in
            let row = try Row.fetchOne(
                try db.cachedStatement(
                    sql: """
                        SELECT COUNT(*) AS clicks, COALESCE(SUM(platform = ? AND os_version IS ? AND device IS ?), 0) AS similar,
                               COALESCE(SUM(created_at >= ?), 0) AS recent, MIN(created_at) AS oldest
                        FROM (
                            SELECT platform, os_version, device, created_at FROM pending_clicks
                            WHERE project_id = ? AND address_hash = ? AND created_at >= ? ORDER BY created_at DESC LIMIT ?)
                        """),
                arguments: [
                    platform.rawValue, fingerprint.osVersion, fingerprint.device, recentSince.timeIntervalSince1970, projectId, addressHash,
                    since.timeIntervalSince1970, limit,
                ])
            let clicks: Int = row?["clicks"] ?? 0
            let oldest: Double? = row?["oldest"]
            return AddressActivity(
                clicks: clicks, similarClicks: row?["similar"] ?? 0, recentClicks: row?["recent"] ?? 0,
                oldestCounted: clicks >= limit ? oldest.map(Date.init(timeIntervalSince1970:)) : nil)
        }
    }

    public func claim(
        clickId: String?, confidence: AttributionConfidence?, projectId: String, installId: String?, response: String, at date: Date,
        events: EventDeliveries<String>?
    ) async throws -> ClaimOutcome {
        let (outcome, leftOut) = try await write { db -> (ClaimOutcome, Int) in
            if let installId,
                let row = try Row.fetchOne(
                    try db.cachedStatement(sql: "SELECT * FROM install_claims WHERE project_id = ? AND install_id = ?"),
                    arguments: [projectId, installId])
            {
                return (.answeredBefore(try InstallClaim(row: row)), 0)
            }
            var takenBack = false
            if let clickId {
                // Read in the same write: the one writer makes it what the UPDATE below changes.
                takenBack =
                    try Bool.fetchOne(
                        try db.cachedStatement(sql: "SELECT claimed_at IS NOT NULL FROM pending_clicks WHERE id = ? AND project_id = ?"),
                        arguments: [clickId, projectId]) ?? false
                try db.cachedStatement(
                    sql: """
                        UPDATE pending_clicks SET claimed_at = ?, confidence = ?
                        WHERE id = ? AND project_id = ? AND (claimed_at IS NULL OR (confidence = 'WEAK' AND ? <> 'WEAK'))
                        """
                ).execute(arguments: [date.timeIntervalSince1970, confidence?.rawValue, clickId, projectId, confidence?.rawValue ?? "WEAK"])
                if db.changesCount == 0 { return (.clickTaken, 0) }
            }
            if let installId {
                try db.cachedStatement(sql: "INSERT INTO install_claims (project_id, install_id, response, created_at) VALUES (?, ?, ?, ?)")
                    .execute(arguments: [projectId, installId, response, date.timeIntervalSince1970])
            }
            if takenBack { return (.takenBack, 0) }
            guard let clickId, let events else { return (.claimed, 0) }
            return (.claimed, try Self.enqueue(events.make(clickId), maximumPending: events.maximumPending, in: db))
        }
        if leftOut > 0 { events?.leftOut(leftOut) }
        return outcome
    }

    public func installClaim(projectId: String, installId: String) async throws -> InstallClaim? {
        try await read { db in
            try Row.fetchOne(
                try db.cachedStatement(sql: "SELECT * FROM install_claims WHERE project_id = ? AND install_id = ?"),
                arguments: [projectId, installId]
            ).map(InstallClaim.init(row:))
        }
    }

    public func purgeDeferredData(projectId: String, clicksBefore: Date, claimsBefore: Date, limit: Int) async throws -> Int {
        try await write { db in
            let clicksBefore = clicksBefore.timeIntervalSince1970
            try db.execute(
                sql: """
                    DELETE FROM pending_clicks WHERE rowid IN (
                        SELECT rowid FROM pending_clicks WHERE project_id = ?1 AND created_at < ?2 LIMIT ?3)
                    """, arguments: [projectId, clicksBefore, limit])
            var removed = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM clicked_links WHERE rowid IN (
                        SELECT rowid FROM clicked_links WHERE project_id = ?1 AND last_clicked_at < ?2 LIMIT ?3)
                    """, arguments: [projectId, clicksBefore - ClickedLink.graceAfterLastClick, limit])
            removed += db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM install_claims WHERE rowid IN (
                        SELECT rowid FROM install_claims WHERE project_id = ?1 AND created_at < ?2 LIMIT ?3)
                    """, arguments: [projectId, claimsBefore.timeIntervalSince1970, limit])
            removed += db.changesCount
            try db.execute(
                sql: "DELETE FROM shadow_matches WHERE project_id = ? AND day < ?",
                arguments: [projectId, ShadowMatchCount.oldestKeptDay(now: Date())])
            return removed
        }
    }

    public func projectsWithDeferredData() async throws -> Set<String> {
        try await read { db in
            var projects: Set<String> = []
            for table in DeferredTables.keyedByProject {
                projects.formUnion(try String.fetchAll(db, sql: DeferredTables.distinctProjects(table)))
            }
            return projects
        }
    }

    public func pendingClickCount(projectId: String, limit: Int) async throws -> Int {
        try await read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM (SELECT 1 FROM pending_clicks WHERE project_id = ? LIMIT ?)",
                arguments: [projectId, max(0, limit)]) ?? 0
        }
    }

    public func setting(_ key: String) async throws -> String? {
        try await read { db in
            try String.fetchOne(
                try db.cachedStatement(sql: "SELECT value FROM settings WHERE key = ?"), arguments: [key])
        }
    }

    public func settingInsertingIfAbsent(_ key: String, value: String) async throws -> String {
        try await write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO settings (key, value) VALUES (?, ?)", arguments: [key, value])
            return try String.fetchOne(
                try db.cachedStatement(sql: "SELECT value FROM settings WHERE key = ?"), arguments: [key]) ?? value
        }
    }

    public func removeSetting(_ key: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM settings WHERE key = ?", arguments: [key])
            return db.changesCount > 0
        }
    }
}

// MARK: - Webhooks

extension SQLiteStore {
    public func insertWebhook(
        projectId: String, url: String, events: [String], secret: String, maximumPerProject: Int
    ) async throws -> WebhookRecord? {
        let now = StoreCoding.stored(Date())
        let id = try await write { db -> Int64? in
            let count =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM webhooks WHERE project_id = ? AND deleted_at IS NULL", arguments: [projectId]) ?? 0
            guard count < maximumPerProject else { return nil }
            try db.execute(
                sql: "INSERT INTO webhooks (project_id, url, events, secret, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [projectId, url, events.joined(separator: ","), secret, now.timeIntervalSince1970])
            return db.lastInsertedRowID
        }
        return id.map { WebhookRecord(id: $0, projectId: projectId, url: url, events: events, secret: secret, createdAt: now) }
    }

    public func webhooks(projectId: String?) async throws -> [WebhookRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(WebhookRecord.columns) FROM webhooks WHERE deleted_at IS NULL" + (projectId == nil ? "" : " AND project_id = ?")
                    + " ORDER BY id",
                arguments: StatementArguments(projectId.map { [$0] } ?? [])
            ).map { try WebhookRecord(row: $0) }
        }
    }

    public func deleteWebhook(id: Int64, projectId: String) async throws -> Bool {
        try await write { db in
            try db.execute(
                sql: "UPDATE webhooks SET deleted_at = ? WHERE id = ? AND project_id = ? AND deleted_at IS NULL",
                arguments: [Date().timeIntervalSince1970, id, projectId])
            return db.changesCount == 1
        }
    }

    public func purgeDeletedWebhooks(limit: Int) async throws -> Int {
        try await write { db in
            // A batch a write: other writes get their turn between.
            try db.execute(
                sql: """
                    DELETE FROM webhook_deliveries WHERE rowid IN (
                        SELECT d.rowid FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id
                        WHERE w.deleted_at IS NOT NULL LIMIT ?)
                    """, arguments: [limit])
            let removed = db.changesCount
            try db.execute(
                sql: """
                    DELETE FROM webhooks WHERE deleted_at IS NOT NULL
                        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = webhooks.id)
                    """)
            return removed
        }
    }

    /// Rows a deletion of many (a webhook's history) removes per write, so other writes get their turn between.
    static let deletionBatch = 5_000

    @discardableResult
    public func enqueueDeliveries(_ deliveries: [WebhookDelivery], maximumPending: Int) async throws -> Int {
        guard !deliveries.isEmpty else { return 0 }
        return try await write { db in try Self.enqueue(deliveries, maximumPending: maximumPending, in: db) }
    }

    /// `enqueueDeliveries` in the caller's transaction.
    /// - Returns: how many were left out for their webhook's cap.
    static func enqueue(_ deliveries: [WebhookDelivery], maximumPending: Int, in db: Database) throws -> Int {
        guard !deliveries.isEmpty else { return 0 }
        let statement = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO webhook_deliveries (id, webhook_id, event, payload, created_at, attempts, next_attempt_at, status)
                VALUES (?, ?, ?, ?, ?, 0, ?, 'PENDING')
                """)
        // The count the triggers keep: read in the same write, so it is exact (one writer).
        let pending = try db.cachedStatement(sql: "SELECT pending FROM webhooks WHERE id = ? AND deleted_at IS NULL")
        // Per webhook, the places left; a removed one has none, and its deliveries are skipped, not counted as left out.
        var room: [Int64: Int] = [:]
        var removed: Set<Int64> = []
        var dropped = 0
        for delivery in deliveries where !removed.contains(delivery.webhookId) {
            if room[delivery.webhookId] == nil {
                guard let count = try Int.fetchOne(pending, arguments: [delivery.webhookId]) else {
                    removed.insert(delivery.webhookId)
                    continue
                }
                room[delivery.webhookId] = max(0, maximumPending - count)
            }
            guard let left = room[delivery.webhookId], left > 0 else {
                dropped += 1
                continue
            }
            try statement.execute(arguments: [
                delivery.id, delivery.webhookId, delivery.event, delivery.payload, delivery.createdAt.timeIntervalSince1970,
                delivery.nextAttemptAt.timeIntervalSince1970,
            ])
            if db.changesCount > 0 { room[delivery.webhookId] = left - 1 }
        }
        return dropped
    }

    public func leaseDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [(WebhookDelivery, WebhookRecord)] {
        let until = now.timeIntervalSince1970 + Self.seconds(lease)
        return try await write { db in
            let rows = try Row.fetchAll(
                db,
                // Which deliveries, and in what order: `WebhookLease`.
                sql: """
                    WITH flying AS (
                        SELECT d.webhook_id, w.project_id, count(*) AS c
                        FROM webhook_deliveries d INDEXED BY webhook_deliveries_leased JOIN webhooks w ON w.id = d.webhook_id
                        WHERE d.status = 'PENDING' AND d.leased_until >= :now GROUP BY d.webhook_id
                    ), project_flying AS (
                        SELECT project_id, sum(c) AS c FROM flying GROUP BY project_id
                    ), ranked AS (
                        SELECT d.id, d.next_attempt_at, d.webhook_id, w.project_id,
                            ROW_NUMBER() OVER (PARTITION BY d.webhook_id ORDER BY d.next_attempt_at, d.id) AS n
                        FROM webhooks w JOIN webhook_deliveries d ON d.id IN (
                            SELECT y.id FROM webhook_deliveries y
                            WHERE y.webhook_id = w.id AND y.status = 'PENDING' AND y.next_attempt_at <= :now
                                AND (y.leased_until IS NULL OR y.leased_until < :now)
                            ORDER BY y.next_attempt_at, y.id LIMIT \(Self.webhookDeliveriesInFlight)
                        )
                        WHERE w.deleted_at IS NULL
                    ), \(WebhookLease.loadedCTEs)
                    SELECT \(WebhookDelivery.leasedColumns) FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                    WHERE d.id IN (SELECT id FROM loaded \(WebhookLease.order) LIMIT :limit)
                    """,
                arguments: ["now": now.timeIntervalSince1970, "limit": limit])
            let leased = try rows.map { (try WebhookDelivery(row: $0), try WebhookRecord(row: $0, prefix: "w_")) }
            let statement = try db.cachedStatement(sql: "UPDATE webhook_deliveries SET leased_until = ? WHERE id = ?")
            for (delivery, _) in leased { try statement.execute(arguments: [until, delivery.id]) }
            return leased
        }
    }

    public func recordAttempt(deliveryId: String, delivered: Bool, status: Int?, error: String?, retryAt: Date?, at now: Date) async throws {
        let state = delivered ? "DELIVERED" : (retryAt == nil ? "FAILED" : "PENDING")
        try await write { db in
            try db.execute(
                sql: """
                    UPDATE webhook_deliveries SET attempts = attempts + 1, status = ?, last_status = ?, last_error = ?,
                        next_attempt_at = COALESCE(?, next_attempt_at), delivered_at = ?, leased_until = NULL
                    WHERE id = ?
                    """,
                arguments: [
                    state, status, error, retryAt?.timeIntervalSince1970, delivered ? now.timeIntervalSince1970 : nil, deliveryId,
                ])
        }
    }

    public func deliveries(webhookId: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT \(WebhookDelivery.columns) FROM webhook_deliveries WHERE webhook_id = ? ORDER BY created_at DESC, id LIMIT ?",
                arguments: [webhookId, limit]
            ).map { try WebhookDelivery(row: $0) }
        }
    }

    public func purgeFinishedDeliveries(before: Date, limit: Int) async throws -> Int {
        try await write { db in
            // By the index of due deliveries (status, next_attempt_at), one status at a time.
            try db.execute(
                sql: """
                    DELETE FROM webhook_deliveries WHERE rowid IN (
                        SELECT rowid FROM webhook_deliveries WHERE status = 'DELIVERED' AND next_attempt_at < ?1
                        UNION ALL
                        SELECT rowid FROM webhook_deliveries WHERE status = 'FAILED' AND next_attempt_at < ?1
                        LIMIT ?2
                    )
                    """, arguments: [before.timeIntervalSince1970, limit])
            return db.changesCount
        }
    }
}
