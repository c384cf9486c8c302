import Foundation
import PostgresNIO

extension PostgresStore {
    /// The schema, one migration per step; names match SQLite's so both report the same version.
    static let migrations: [(name: String, sql: [String])] = [
        (
            "1-links-keys-events",
            [
                """
                CREATE TABLE links (
                    id BIGSERIAL PRIMARY KEY,
                    project_id TEXT NOT NULL,
                    domain TEXT NOT NULL,
                    code TEXT NOT NULL,
                    long_link TEXT NOT NULL,
                    parameters TEXT NOT NULL,
                    suffix_option TEXT NOT NULL,
                    idempotency_key TEXT,
                    disabled BOOLEAN NOT NULL DEFAULT FALSE,
                    expires_at DOUBLE PRECISION,
                    created_at DOUBLE PRECISION NOT NULL,
                    updated_at DOUBLE PRECISION NOT NULL,
                    CONSTRAINT links_domain_code UNIQUE (domain, code)
                )
                """,
                "CREATE UNIQUE INDEX links_on_idempotency_key ON links (idempotency_key)",
                "CREATE INDEX links_on_project ON links (project_id, id)",
                """
                CREATE TABLE api_keys (
                    id BIGSERIAL PRIMARY KEY,
                    project_id TEXT NOT NULL,
                    name TEXT,
                    key_hash TEXT NOT NULL UNIQUE,
                    key_prefix TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    revoked_at DOUBLE PRECISION
                )
                """,
                """
                CREATE TABLE event_counters (
                    link_id BIGINT NOT NULL REFERENCES links (id) ON DELETE CASCADE,
                    day BIGINT NOT NULL,
                    platform TEXT NOT NULL,
                    event TEXT NOT NULL,
                    count BIGINT NOT NULL,
                    PRIMARY KEY (link_id, day, platform, event)
                )
                """,
            ]
        ),
        (
            "2-deferred-links",
            [
                """
                CREATE TABLE pending_clicks (
                    id TEXT PRIMARY KEY,
                    project_id TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    link_id BIGINT,
                    requested_link TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    address_hash TEXT,
                    network_hash TEXT,
                    ip_version BIGINT,
                    os_version TEXT,
                    device TEXT,
                    languages TEXT NOT NULL,
                    screen TEXT,
                    time_zone TEXT,
                    claimed_at DOUBLE PRECISION,
                    confidence TEXT
                )
                """,
                "CREATE INDEX pending_clicks_by_address ON pending_clicks (project_id, address_hash, created_at)",
                "CREATE INDEX pending_clicks_by_network ON pending_clicks (project_id, network_hash)",
                "CREATE INDEX pending_clicks_by_device ON pending_clicks (project_id, os_version, device)",
                "CREATE INDEX pending_clicks_by_age ON pending_clicks (project_id, created_at)",
                """
                CREATE TABLE install_claims (
                    project_id TEXT NOT NULL,
                    install_id TEXT NOT NULL,
                    response TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (project_id, install_id)
                )
                """,
                "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            ]
        ),
        (
            "3-click-app",
            [
                // Which app a click was sent to install: claims match only clicks of their own app.
                "ALTER TABLE pending_clicks ADD COLUMN app_id TEXT",
                // Candidates are found by address or network only now (never by OS and device alone).
                "DROP INDEX pending_clicks_by_device",
            ]
        ),
        (
            "4-clicked-links",
            [
                // A long link is kept once for all its clicks (see `ClickedLink`).
                """
                CREATE TABLE clicked_links (
                    project_id TEXT NOT NULL, digest TEXT NOT NULL, link TEXT NOT NULL, last_clicked_at DOUBLE PRECISION NOT NULL,
                    PRIMARY KEY (project_id, digest)
                )
                """,
                "ALTER TABLE pending_clicks ADD COLUMN link_digest TEXT",
            ]
        ),
        (
            "5-shadow-matches",
            [
                // Live precision: what the fingerprint matcher would have said for claims settled by their token.
                """
                CREATE TABLE shadow_matches (
                    project_id TEXT NOT NULL, day INTEGER NOT NULL, confidence TEXT NOT NULL, same_click BOOLEAN NOT NULL,
                    count BIGINT NOT NULL, PRIMARY KEY (project_id, day, confidence, same_click)
                )
                """
            ]
        ),
        (
            "6-candidate-indexes",
            [
                // Candidates are looked up by address and by network, each within the window (see SQLite's).
                "DROP INDEX pending_clicks_by_network",
                "CREATE INDEX pending_clicks_by_network ON pending_clicks (project_id, network_hash, created_at)",
            ]
        ),
        (
            "7-clicks-by-link",
            [
                // A short link's own clicks, newest first (`relink deferred test` watches them).
                "CREATE INDEX pending_clicks_by_link ON pending_clicks (link_id, created_at)"
            ]
        ),
        (
            "8-imported-links",
            [
                // Links imported from Firebase keep their archived flag and name.
                "ALTER TABLE links ADD COLUMN archived BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE links ADD COLUMN name TEXT",
            ]
        ),
        (
            "9-page-previews",
            [
                // A link's crawler card filled from its destination page, fetched off the click path and refreshed.
                "ALTER TABLE links ADD COLUMN fetch_preview BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE links ADD COLUMN preview TEXT",
                "ALTER TABLE links ADD COLUMN preview_fetched_at DOUBLE PRECISION",
            ]
        ),
        (
            "10-link-rules",
            [
                // A link's rules and A/B variants, as JSON.
                "ALTER TABLE links ADD COLUMN rules TEXT"
            ]
        ),
        (
            "11-variant-counters",
            [
                // Per-variant counters beside the totals, and the variant each kept click was given.
                """
                CREATE TABLE variant_counters (
                    link_id BIGINT NOT NULL REFERENCES links (id) ON DELETE CASCADE,
                    day INTEGER NOT NULL,
                    variant TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    event TEXT NOT NULL,
                    count BIGINT NOT NULL,
                    PRIMARY KEY (link_id, day, variant, platform, event)
                )
                """,
                "ALTER TABLE pending_clicks ADD COLUMN variant TEXT",
            ]
        ),
        (
            "12-click-limits",
            [
                // A link's click limit and where clicks go once it is over.
                "ALTER TABLE links ADD COLUMN max_clicks BIGINT",
                "ALTER TABLE links ADD COLUMN expired_link TEXT",
            ]
        ),
        (
            "13-webhooks",
            [
                // Subscriptions, and the outbox of deliveries: written before anything is sent, leased by one sender.
                """
                CREATE TABLE webhooks (
                    id BIGSERIAL PRIMARY KEY, project_id TEXT NOT NULL, url TEXT NOT NULL, events TEXT NOT NULL, secret TEXT NOT NULL,
                    created_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX webhooks_by_project ON webhooks (project_id, id)",
                """
                CREATE TABLE webhook_deliveries (
                    id TEXT PRIMARY KEY, webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE, event TEXT NOT NULL,
                    payload TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
                    next_attempt_at DOUBLE PRECISION NOT NULL, status TEXT NOT NULL, last_status INTEGER, last_error TEXT,
                    delivered_at DOUBLE PRECISION, leased_until DOUBLE PRECISION
                )
                """,
                "CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at)",
                "CREATE INDEX webhook_deliveries_by_webhook ON webhook_deliveries (webhook_id, created_at)",
            ]
        ),
        (
            "14-console",
            [
                // Console-only keys, console sessions (under their id's hash), installs per confidence, and project-wide
                // statistics read by day.
                "ALTER TABLE api_keys ADD COLUMN scope TEXT NOT NULL DEFAULT 'API'",
                """
                CREATE TABLE console_sessions (
                    id_hash TEXT PRIMARY KEY, key_id BIGINT NOT NULL, data TEXT NOT NULL, created_at DOUBLE PRECISION NOT NULL,
                    expires_at DOUBLE PRECISION NOT NULL
                )
                """,
                "CREATE INDEX console_sessions_by_key ON console_sessions (key_id, created_at)",
                "CREATE INDEX console_sessions_by_expiry ON console_sessions (expires_at)",
                """
                CREATE TABLE confidence_counters (
                    link_id BIGINT NOT NULL REFERENCES links (id) ON DELETE CASCADE, day INTEGER NOT NULL, confidence TEXT NOT NULL,
                    count BIGINT NOT NULL, PRIMARY KEY (link_id, day, confidence)
                )
                """,
                "CREATE INDEX event_counters_by_day ON event_counters (day, link_id)",
            ]
        ),
        (
            "15-address-activity",
            [
                // How busy a claimer's address is, counted over its latest clicks from the index alone: a crowded
                // address's latest clicks lie all over the table.
                "DROP INDEX pending_clicks_by_address",
                "CREATE INDEX pending_clicks_by_address ON pending_clicks (project_id, address_hash, created_at) INCLUDE (platform, os_version, device)",
            ]
        ),
        (
            "16-counters-kept-by-triggers",
            [
                // The counters' foreign keys locked the counted link for every new counter row, the largest part of
                // PostgreSQL's own work for a click on a million links (docs/performance.md). Triggers keep what the
                // keys did on deletion: a link's counters go with it, by hand or by TRUNCATE. A new link clearing
                // counters under its id is the inserts' own work (a trigger would also clear the counters of a
                // data-only restore, which loads the tables in name order, counters first); the flush checks that
                // its links exist.
                "ALTER TABLE event_counters DROP CONSTRAINT IF EXISTS event_counters_link_id_fkey",
                "ALTER TABLE variant_counters DROP CONSTRAINT IF EXISTS variant_counters_link_id_fkey",
                "ALTER TABLE confidence_counters DROP CONSTRAINT IF EXISTS confidence_counters_link_id_fkey",
                """
                CREATE FUNCTION relink_clear_link_counters() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
                BEGIN
                    DELETE FROM event_counters WHERE link_id = OLD.id;
                    DELETE FROM variant_counters WHERE link_id = OLD.id;
                    DELETE FROM confidence_counters WHERE link_id = OLD.id;
                    RETURN NULL;
                END
                $$
                """,
                // `TRUNCATE links, event_counters, …` (a reset by hand) would fail if the trigger truncated a table
                // the statement is truncating ("being used by active queries"); such a table is empty by then.
                """
                CREATE FUNCTION relink_clear_all_counters() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
                BEGIN
                    IF EXISTS (SELECT 1 FROM event_counters) THEN TRUNCATE event_counters; END IF;
                    IF EXISTS (SELECT 1 FROM variant_counters) THEN TRUNCATE variant_counters; END IF;
                    IF EXISTS (SELECT 1 FROM confidence_counters) THEN TRUNCATE confidence_counters; END IF;
                    RETURN NULL;
                END
                $$
                """,
                "CREATE TRIGGER links_clear_counters AFTER DELETE ON links FOR EACH ROW EXECUTE FUNCTION relink_clear_link_counters()",
                "CREATE TRIGGER links_truncate_counters AFTER TRUNCATE ON links FOR EACH STATEMENT EXECUTE FUNCTION relink_clear_all_counters()",
            ]
        ),
        (
            "17-pending-deliveries-by-webhook",
            [
                // A webhook's pending deliveries are counted before more are written (their cap), from the index alone.
                "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id) WHERE status = 'PENDING'"
            ]
        ),
        (
            "18-webhook-lease-indexes",
            [
                // A lease reads each webhook's first due deliveries and the leased ones from indexes, whatever the
                // backlog: it runs again each time a delivery ends. The first also counts a webhook's pending ones.
                "DROP INDEX webhook_deliveries_pending",
                "CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (webhook_id, next_attempt_at, id) WHERE status = 'PENDING'",
                "CREATE INDEX webhook_deliveries_leased ON webhook_deliveries (leased_until) WHERE status = 'PENDING'",
            ]
        ),
        (
            "19-purge-by-age",
            [
                // The purge finds what aged out by index, in batches, instead of reading every kept link and claim
                // of the project (a kept long link is kilobytes) while it holds the writer.
                "CREATE INDEX clicked_links_by_age ON clicked_links (project_id, last_clicked_at)",
                "CREATE INDEX install_claims_by_age ON install_claims (project_id, created_at)",
            ]
        ),
        (
            "20-webhooks-removed-at-once-and-pending-kept",
            [
                // A removed webhook is marked, and answered at once; its deliveries (millions for a busy one) go after.
                "ALTER TABLE webhooks ADD COLUMN deleted_at DOUBLE PRECISION",
                // Each webhook's pending deliveries, counted in its row by triggers through every change: the cap is
                // checked in every write that sends an event, and counting a full webhook's 100,000 index entries there
                // took about 50 ms a webhook. The triggers run once per statement, over its rows (a row trigger
                // updated the webhook's row once per delivery: a batch of a thousand made a thousand versions of it),
                // and lock the webhooks' rows in the order of their ids, so that writes at once never deadlock on them.
                "ALTER TABLE webhooks ADD COLUMN pending BIGINT NOT NULL DEFAULT 0",
                """
                UPDATE webhooks w SET pending = (
                    SELECT COUNT(*) FROM webhook_deliveries d WHERE d.webhook_id = w.id AND d.status = 'PENDING')
                """,
                """
                CREATE FUNCTION relink_count_pending_deliveries() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
                BEGIN
                    IF TG_OP = 'INSERT' THEN
                        PERFORM 1 FROM webhooks WHERE id IN (SELECT webhook_id FROM added WHERE status = 'PENDING') ORDER BY id FOR NO KEY UPDATE;
                        UPDATE webhooks w SET pending = w.pending + c.n
                        FROM (SELECT webhook_id, COUNT(*) AS n FROM added WHERE status = 'PENDING' GROUP BY webhook_id) c WHERE w.id = c.webhook_id;
                    ELSIF TG_OP = 'DELETE' THEN
                        PERFORM 1 FROM webhooks WHERE id IN (SELECT webhook_id FROM removed WHERE status = 'PENDING') ORDER BY id FOR NO KEY UPDATE;
                        UPDATE webhooks w SET pending = w.pending - c.n
                        FROM (SELECT webhook_id, COUNT(*) AS n FROM removed WHERE status = 'PENDING' GROUP BY webhook_id) c WHERE w.id = c.webhook_id;
                    ELSE
                        -- Most updates (a lease, an attempt to retry) leave every count as it was, and lock nothing.
                        PERFORM 1 FROM webhooks WHERE id IN (
                            SELECT webhook_id FROM (
                                SELECT webhook_id, -1 AS n FROM removed WHERE status = 'PENDING'
                                UNION ALL SELECT webhook_id, 1 FROM added WHERE status = 'PENDING'
                            ) x GROUP BY webhook_id HAVING SUM(n) <> 0
                        ) ORDER BY id FOR NO KEY UPDATE;
                        UPDATE webhooks w SET pending = w.pending + c.n
                        FROM (
                            SELECT webhook_id, SUM(n) AS n FROM (
                                SELECT webhook_id, -1 AS n FROM removed WHERE status = 'PENDING'
                                UNION ALL SELECT webhook_id, 1 FROM added WHERE status = 'PENDING'
                            ) x GROUP BY webhook_id HAVING SUM(n) <> 0
                        ) c WHERE w.id = c.webhook_id;
                    END IF;
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE FUNCTION relink_clear_pending_deliveries() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
                BEGIN
                    UPDATE webhooks SET pending = 0 WHERE pending <> 0;
                    RETURN NULL;
                END
                $$
                """,
                """
                CREATE TRIGGER webhook_deliveries_added AFTER INSERT ON webhook_deliveries REFERENCING NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION relink_count_pending_deliveries()
                """,
                """
                CREATE TRIGGER webhook_deliveries_removed AFTER DELETE ON webhook_deliveries REFERENCING OLD TABLE AS removed
                FOR EACH STATEMENT EXECUTE FUNCTION relink_count_pending_deliveries()
                """,
                """
                CREATE TRIGGER webhook_deliveries_changed AFTER UPDATE ON webhook_deliveries REFERENCING OLD TABLE AS removed NEW TABLE AS added
                FOR EACH STATEMENT EXECUTE FUNCTION relink_count_pending_deliveries()
                """,
                """
                CREATE TRIGGER webhook_deliveries_truncated AFTER TRUNCATE ON webhook_deliveries
                FOR EACH STATEMENT EXECUTE FUNCTION relink_clear_pending_deliveries()
                """,
            ]
        ),
    ]

    /// Applies the migrations this database lacks, in one transaction under an advisory lock, so instances
    /// starting together apply each migration once and the others wait, then see it applied. A database with a
    /// migration this build does not know was upgraded by a newer Relink: refuse to run against it.
    /// With `target` (the upgrade tests), only the migrations up to the one of that name, included.
    func migrate(upTo target: String? = nil) async throws {
        let wanted = Self.migrations(upTo: target)
        if let schema = url.schema {
            // Two instances may race here; IF NOT EXISTS can still fail with a unique violation, which is harmless.
            do {
                try await rows(PostgresQuery(unsafeSQL: "CREATE SCHEMA IF NOT EXISTS \(schema)"))
            } catch  where [.uniqueViolation, .duplicateSchema].contains(SQLState(error)) {}
        }
        try await transaction(wait: .seconds(300)) { [self] connection in
            let lockName = "relink migrations " + schema
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockName)))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS relink_migrations (
                    name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL
                )
                """, logger: logger)
            var applied: [String] = []
            for try await name in try await connection.query("SELECT name FROM relink_migrations ORDER BY applied_at, name", logger: logger)
                .decode(String.self)
            {
                applied.append(name)
            }
            let known = Self.migrations.map(\.name)
            if let unknown = applied.first(where: { !known.contains($0) }) {
                throw StoreError.schemaTooNew(found: unknown, known: known.last ?? "?")
            }
            for migration in wanted where !applied.contains(migration.name) {
                for statement in migration.sql {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let now = Date().timeIntervalSince1970
                try await connection.query(
                    "INSERT INTO relink_migrations (name, applied_at) VALUES (\(migration.name), \(now))", logger: logger)
                logger.info("applied migration \(migration.name) to \(url)")
            }
        }
    }

    /// The migrations up to the one named `target`, included; all of them for nil.
    static func migrations(upTo target: String?) -> ArraySlice<(name: String, sql: [String])> {
        guard let target else { return migrations[...] }
        guard let last = migrations.firstIndex(where: { $0.name == target }) else { preconditionFailure("no migration is named \(target)") }
        return migrations[...last]
    }
}
