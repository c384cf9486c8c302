import Foundation
import PostgresNIO
import RelinkCore

// MARK: - Links

extension PostgresStore {
    public func insertLink(_ draft: ShortLinkDraft, events: EventDeliveries<ShortLinkRecord>?) async throws -> ShortLinkRecord {
        // The NOTIFY drops other instances' "no such code" entries, so the new link works there at once.
        let insert = try Self.inserting(draft, channel: channel, skippingTakenCodes: false)
        do {
            guard let events else {
                guard let id = try await rows(insert).first?.value("id", as: Int64.self) else {
                    throw StoreError.unavailable("the insert returned no id")
                }
                return draft.record(id: id)
            }
            let logger = self.logger
            let (id, leftOut) = try await transaction { connection in
                let inserted = try await connection.query(insert, logger: logger).collect().map(PostgresRandomAccessRow.init)
                guard let id = try inserted.first?.value("id", as: Int64.self) else { throw StoreError.unavailable("the insert returned no id") }
                let deliveries = events.make(draft.record(id: id))
                return (id, try await self.enqueue(deliveries, maximumPending: events.maximumPending, on: connection))
            }
            if leftOut > 0 { events.leftOut(leftOut) }
            return draft.record(id: id)
        } catch  where SQLState(error) == .uniqueViolation {
            if Self.constraint(error) == "links_on_idempotency_key" { throw StoreError.idempotencyKeyTaken }
            throw StoreError.codeTaken(domain: draft.domain, code: draft.code)
        }
    }

    /// One statement inserting `draft`, clearing counters stored under its new id, and telling other instances its
    /// domain and code, a tab between (which neither holds), when the transaction commits: their "no such code" entries
    /// go. Its rows: the new link's `id`, none when
    /// `skippingTakenCodes` and the code is taken.
    static func inserting(_ draft: ShortLinkDraft, channel: String, skippingTakenCodes: Bool) throws -> PostgresQuery {
        let parameters = try StoreCoding.encode(draft.parameters)
        let rules = try StoreCoding.encode(rules: draft.rules)
        let created = draft.createdAt.timeIntervalSince1970
        return """
            WITH inserted AS (
                INSERT INTO links (project_id, domain, code, long_link, parameters, suffix_option, idempotency_key,
                                   created_at, updated_at, archived, name, fetch_preview, rules, expires_at, max_clicks, expired_link)
                VALUES (\(draft.projectId), \(draft.domain), \(draft.code), \(draft.longLink), \(parameters),
                        \(draft.suffixOption.rawValue), \(draft.idempotencyKey), \(created), \(created), \(draft.archived), \(draft.name),
                        \(draft.fetchPreview), \(rules), \(draft.expiresAt?.timeIntervalSince1970), \(draft.maxClicks.map(Int64.init)),
                        \(draft.expiredLink))
                \(unescaped: skippingTakenCodes ? "ON CONFLICT (domain, code) DO NOTHING" : "")
                RETURNING id, domain, code
            ),
            \(unescaped: Self.clearingCounters)
            SELECT id, pg_notify(\(channel), domain || E'\\t' || code)::TEXT AS notified FROM inserted
            """
    }

    /// The part of a link's insert (after `WITH inserted AS (… RETURNING id …)`) that clears counters stored under the
    /// new id, in the same statement: an id reused after `TRUNCATE … RESTART IDENTITY` inherits nothing.
    static let clearingCounters = """
        cleared_events AS (DELETE FROM event_counters WHERE link_id IN (SELECT id FROM inserted)),
        cleared_variants AS (DELETE FROM variant_counters WHERE link_id IN (SELECT id FROM inserted)),
        cleared_confidences AS (DELETE FROM confidence_counters WHERE link_id IN (SELECT id FROM inserted))
        """

    public func importLinks(_ drafts: [ShortLinkDraft]) async throws -> Set<String> {
        let channel = channel
        let queries = try drafts.map { ($0, try Self.inserting($0, channel: channel, skippingTakenCodes: true)) }
        return try await transaction(wait: Self.batchWait) { connection in
            var skipped: Set<String> = []
            for (draft, query) in queries {
                var inserted = 0
                for try await _ in try await connection.query(query, logger: self.logger) { inserted += 1 }
                if inserted == 0 { skipped.insert("\(draft.domain)\t\(draft.code)") }
            }
            return skipped
        }
    }

    public func link(domain: String, code: String) async throws -> ShortLinkRecord? {
        // PostgreSQL's text holds no NUL, so no link has one (and a NUL would fail the batch it was sent in).
        guard !domain.utf8.contains(0), !code.utf8.contains(0) else { return nil }
        return try await lookups.link(domain: domain, code: code) { batches in await self.lookupSession(batches) }
    }

    /// A lookup drain's batches on one leased connection. Leasing one for every batch (a handful of keys) made the
    /// pool schedule a keep-alive and an idle timer each time it got the connection back, and cancel them at the next
    /// lease; each timer's task and dispatch timer lived on for the timer's full 30 or 60 s, so under load they piled
    /// up in memory and their heap cost more CPU than the lookups
    /// (docs/performance.md#one-connection-per-lookup-drain). A query that fails closes its connection, so the next
    /// session's lease gets another: it may be stuck on a dead connection, and a prepared statement that failed stays
    /// failed on its connection (postgres-nio keeps the error), as does one whose columns changed type (`cached plan
    /// must not change result type`): a helper's attack left every lookup failing until a restart, both ways.
    func lookupSession(_ batches: (LinkLookupBatcher.Fetch) async -> Bool) async -> Bool {
        do {
            return try await client.withConnection { connection in
                await setUpForLookups(connection)
                return await batches { keys in
                    do {
                        return try await self.links(keys, on: connection)
                    } catch {
                        // Closed before the lease ends: a connection released while still closing went back to the
                        // pool and failed the next query given it.
                        try? await connection.close()
                        // A pause before the next lease: while the table was missing, every lookup opened a new
                        // connection, a startup and a prepare each
                        // (docs/performance.md#one-connection-per-lookup-drain).
                        try? await Task.sleep(for: Self.lookupRetryPause)
                        throw error
                    }
                }
            }
        } catch {
            // No connection: the batches fail with the reason.
            let failure = Self.unavailable(error)
            return await batches { _ in throw failure }
        }
    }

    /// Asks PostgreSQL (14 and later) to check every second whether a lookup connection's client is still there
    /// while a query runs, once per connection. A lookup that times out closes its connection, but a backend
    /// waiting for a lock (an `ALTER TABLE` holding the links table) did not notice its client had gone until it got
    /// the lock: a helper's attack saw one more backend a second pile up for as long as the lock was held. Older
    /// servers refuse the setting, which changes nothing else.
    func setUpForLookups(_ connection: PostgresConnection) async {
        guard lookupConnections.isNew(connection.id) else { return }
        _ = try? await bounded(url.requestWait) {
            try await connection.query("SET client_connection_check_interval = '1s'", logger: self.logger).collect().count
        }
    }

    /// How long a lookup drain waits after a failed query closed its connection, before it leases another.
    static let lookupRetryPause = Duration.milliseconds(100)

    /// The links of `keys`, in one query on `connection`.
    func links(_ keys: [LinkLookupBatcher.Key], on connection: PostgresConnection) async throws -> LinkLookupBatcher.Answers {
        let statement = LinkLookupStatement(domains: keys.map(\.domain), codes: keys.map(\.code))
        let rows = try await bounded(url.requestWait) {
            do {
                var rows: [PostgresRandomAccessRow] = []
                rows.reserveCapacity(keys.count)
                for try await row in try await connection.execute(statement, logger: self.logger) {
                    rows.append(PostgresRandomAccessRow(row))
                }
                return rows
            } catch {
                // The store's problem either way (503), with PostgreSQL's reason in the log.
                let unavailable = Self.unavailable(error)
                if unavailable is StoreError { throw unavailable }
                throw StoreError.unavailable("the link lookup failed: \(Self.explain(error))")
            }
        }
        var answers = LinkLookupBatcher.Answers(minimumCapacity: rows.count)
        for row in rows {
            let key = LinkLookupBatcher.Key(domain: try row.text("domain"), code: try row.text("code"))
            // A row that cannot be read fails the lookups of its own link only, as the store's problem (503).
            do {
                answers[key] = .success(try ShortLinkRecord(row: row))
            } catch {
                answers[key] = .failure(StoreError.unavailable("the stored link \(key.domain)/\(key.code) cannot be read: \(error)"))
            }
        }
        return answers
    }

    public func link(idempotencyKey: String) async throws -> ShortLinkRecord? {
        try await rows("SELECT \(unescaped: ShortLinkRecord.columns) FROM links WHERE idempotency_key = \(idempotencyKey)")
            .first.map(ShortLinkRecord.init(row:))
    }

    public func links(projectId: String, matching: String?, beforeId: Int64?, limit: Int) async throws -> [ShortLinkRecord] {
        guard let pattern = matching.flatMap(LinkSearch.likePattern) else {
            return try await rows(
                """
                SELECT \(unescaped: ShortLinkRecord.columns) FROM links WHERE project_id = \(projectId) AND id < \(beforeId ?? Int64.max)
                ORDER BY id DESC LIMIT \(limit)
                """
            ).map(ShortLinkRecord.init(row:))
        }
        // ASCII case only, as SQLite's LIKE: the same search finds the same links in both stores. `lower` under the
        // "C" collation changes ASCII letters only, whatever the database's locale, and costs far less than
        // `translate`, which made searches of large projects run past the request's wait
        // (docs/performance.md#link-search-on-postgresql).
        let lowered = LinkSearch.asciiLowercased(pattern)
        let stored = LinkSearch.asciiLowercased(matching.flatMap(LinkSearch.storedLongLinkPattern) ?? pattern)
        return try await rows(
            """
            SELECT \(unescaped: ShortLinkRecord.columns) FROM links WHERE project_id = \(projectId) AND id < \(beforeId ?? Int64.max)
            AND (lower(code COLLATE "C") LIKE \(lowered) ESCAPE '\\'
                OR lower(long_link COLLATE "C") LIKE \(lowered) ESCAPE '\\'
                OR lower(long_link COLLATE "C") LIKE \(stored) ESCAPE '\\'
                OR lower(COALESCE(name, '') COLLATE "C") LIKE \(lowered) ESCAPE '\\')
            ORDER BY id DESC LIMIT \(limit)
            """
        ).map(ShortLinkRecord.init(row:))
    }

    public func updateLink(
        id: Int64, events: EventDeliveries<ShortLinkRecord>?, _ change: @escaping @Sendable (ShortLinkRecord) throws -> ShortLinkRecord?
    ) async throws -> (stored: ShortLinkRecord, saved: ShortLinkRecord?) {
        let logger = self.logger
        let channel = self.channel
        let (stored, saved, leftOut) = try await transaction { connection -> (ShortLinkRecord, ShortLinkRecord?, Int) in
            // The row lock holds other changes of the link until this one commits; they then read what it wrote.
            let read = try await connection.query(
                "SELECT \(unescaped: ShortLinkRecord.columns) FROM links WHERE id = \(id) FOR UPDATE", logger: logger
            ).collect().map(PostgresRandomAccessRow.init)
            guard let row = read.first else { throw StoreError.notFound }
            let stored = try ShortLinkRecord(row: row)
            guard let link = try change(stored) else { return (stored, nil, 0) }
            var updated = link.forUpdate()
            updated.id = stored.id
            let parameters = try StoreCoding.encode(updated.parameters)
            // One statement: the row changes and the NOTIFY goes out when it commits, never one without the other.
            let changed = try await connection.query(
                """
                WITH changed AS (
                    UPDATE links SET long_link = \(updated.longLink), parameters = \(parameters), disabled = \(updated.disabled),
                        expires_at = \(updated.expiresAt?.timeIntervalSince1970), updated_at = \(updated.updatedAt.timeIntervalSince1970),
                        archived = \(updated.archived), name = \(updated.name), fetch_preview = \(updated.fetchPreview),
                        rules = \(try StoreCoding.encode(rules: updated.rules)), max_clicks = \(updated.maxClicks.map(Int64.init)),
                        expired_link = \(updated.expiredLink), idempotency_key = \(updated.idempotencyKey)
                    WHERE id = \(updated.id)
                    RETURNING domain, code
                )
                SELECT pg_notify(\(channel), domain || E'\\t' || code)::TEXT AS notified FROM changed
                """, logger: logger
            ).collect()
            guard changed.count == 1 else { throw StoreError.notFound }
            guard let events else { return (stored, updated, 0) }
            return (stored, updated, try await self.enqueue(events.make(updated), maximumPending: events.maximumPending, on: connection))
        }
        if leftOut > 0 { events?.leftOut(leftOut) }
        return (stored, saved)
    }

    public func savePreview(linkId: Int64, preview: PagePreview) async throws {
        let text = try StoreCoding.encode(preview: preview)
        // Other instances drop the link from their caches, so their crawlers see the new card.
        let rows = try await rows(
            """
            WITH changed AS (
                UPDATE links SET preview = \(text), preview_fetched_at = \(preview.fetchedAt.timeIntervalSince1970)
                WHERE id = \(linkId)
                RETURNING domain, code
            )
            SELECT pg_notify(\(channel), domain || E'\\t' || code)::TEXT AS notified FROM changed
            """)
        guard rows.count == 1 else { throw StoreError.notFound }
    }

    public func linksDueForPreview(projectIds: [String], fetchedBefore: Date, limit: Int) async throws -> [ShortLinkRecord] {
        try await rows(
            """
            SELECT \(unescaped: ShortLinkRecord.columns) FROM links
            WHERE (fetch_preview OR project_id = ANY(\(projectIds))) AND NOT disabled
                AND (preview_fetched_at IS NULL OR preview_fetched_at < \(fetchedBefore.timeIntervalSince1970))
            ORDER BY preview_fetched_at NULLS FIRST, id LIMIT \(limit)
            """
        ).map(ShortLinkRecord.init(row:))
    }

    public func countLinksWithCountryRules() async throws -> Int {
        let rows = try await rows(#"SELECT COUNT(*)::BIGINT AS links FROM links WHERE rules LIKE '%"countries":["%'"#)
        return Int(try rows.first?.value("links", as: Int64.self) ?? 0)
    }
}

// MARK: - API keys

extension PostgresStore {

    public func insertAPIKey(
        projectId: String, name: String?, keyHash: String, keyPrefix: String, scope: APIKeyScope
    ) async throws
        -> APIKeyRecord
    {
        let now = StoreCoding.stored(Date())
        let rows = try await rows(
            """
            INSERT INTO api_keys (project_id, name, key_hash, key_prefix, created_at, scope)
            VALUES (\(projectId), \(name), \(keyHash), \(keyPrefix), \(now.timeIntervalSince1970), \(scope.rawValue)) RETURNING id
            """)
        guard let id = try rows.first?.value("id", as: Int64.self) else { throw StoreError.unavailable("the insert returned no id") }
        return APIKeyRecord(
            id: id, projectId: projectId, name: name, keyHash: keyHash, keyPrefix: keyPrefix, createdAt: now, revokedAt: nil, scope: scope)
    }

    public func apiKey(hash: String) async throws -> APIKeyRecord? {
        try await rows("SELECT \(unescaped: APIKeyRecord.columns) FROM api_keys WHERE key_hash = \(hash)").first.map(APIKeyRecord.init(row:))
    }

    public func apiKeys(projectId: String?) async throws -> [APIKeyRecord] {
        if let projectId {
            return try await rows("SELECT \(unescaped: APIKeyRecord.columns) FROM api_keys WHERE project_id = \(projectId) ORDER BY id").map(
                APIKeyRecord.init(row:))
        }
        return try await rows("SELECT \(unescaped: APIKeyRecord.columns) FROM api_keys ORDER BY id").map(APIKeyRecord.init(row:))
    }

    public func revokeAPIKey(id: Int64) async throws -> APIKeyRecord? {
        let now = Date().timeIntervalSince1970
        // One statement: the key is revoked and its console sessions end together.
        return try await rows(
            """
            WITH ended AS (DELETE FROM console_sessions WHERE key_id = \(id))
            UPDATE api_keys SET revoked_at = COALESCE(revoked_at, \(now)) WHERE id = \(id) RETURNING *
            """
        ).first.map(APIKeyRecord.init(row:))
    }
}

// MARK: - Events

extension PostgresStore {
    /// Rows per batch statement, to keep each statement's memory bounded.
    static let rowsPerStatement = 1000

    public func addEventCounts(_ counts: [EventCounterKey: Int64]) async throws {
        guard !counts.isEmpty else { return }
        let (totals, variants, confidences) = EventCounterKey.split(counts)
        // Every instance upserts the same hot rows: a fixed order means two batches never wait on each other
        // in a cycle (deadlock).
        let sorted = totals.sorted { EventCounterKey.inKeyOrder($0.key, $1.key) }
        let byVariant = variants.sorted { EventCounterKey.inKeyOrder($0.key, $1.key) }
        // In statements of at most `counterChunk` rows: postgres-nio keeps each connection's send buffer as large as
        // the largest message it ever sent, and a statement of a second's counters over a million links is a few MB
        // (docs/performance.md#counter-statements-in-chunks).
        var queries: [PostgresQuery] = []
        for chunk in Self.chunks(sorted) {
            queries.append(
                """
                INSERT INTO event_counters (link_id, day, platform, event, count)
                SELECT * FROM UNNEST(\(chunk.map(\.key.linkId)), \(chunk.map { Int64($0.key.day) }),
                                     \(chunk.map(\.key.platform.rawValue)), \(chunk.map(\.key.event.rawValue)), \(chunk.map(\.value)))
                ON CONFLICT (link_id, day, platform, event) DO UPDATE SET count = event_counters.count + excluded.count
                """)
        }
        for chunk in Self.chunks(byVariant) {
            queries.append(
                """
                INSERT INTO variant_counters (link_id, day, variant, platform, event, count)
                SELECT * FROM UNNEST(\(chunk.map(\.key.linkId)), \(chunk.map { Int64($0.key.day) }), \(chunk.map { $0.key.variant ?? "" }),
                                     \(chunk.map(\.key.platform.rawValue)), \(chunk.map(\.key.event.rawValue)), \(chunk.map(\.value)))
                ON CONFLICT (link_id, day, variant, platform, event) DO UPDATE SET count = variant_counters.count + excluded.count
                """)
        }
        for chunk in Self.chunks(confidences.sorted { $0.key < $1.key }) {
            queries.append(
                """
                INSERT INTO confidence_counters (link_id, day, confidence, count)
                SELECT * FROM UNNEST(\(chunk.map(\.key.linkId)), \(chunk.map { Int64($0.key.day) }),
                                     \(chunk.map(\.key.confidence.rawValue)), \(chunk.map(\.value)))
                ON CONFLICT (link_id, day, confidence) DO UPDATE SET count = confidence_counters.count + excluded.count
                """)
        }
        // All or none, and always in a transaction, also for one statement: a retried batch must not count its
        // totals twice, and a transaction abandoned on timeout is rolled back (see `transaction`) where a statement
        // on its own would commit later, beside the retry.
        let statements = queries
        // Counters of a link that does not exist are refused, the whole batch with them, as SQLite's foreign keys
        // refuse them: one look at the links' index, without the lock a foreign key takes on each.
        let linkIds = Set(counts.keys.map(\.linkId)).sorted()
        try await transaction(wait: Self.batchWait) { connection in
            let missing = try await connection.query(
                """
                SELECT t.id FROM UNNEST(\(linkIds)::BIGINT[]) AS t(id)
                WHERE NOT EXISTS (SELECT 1 FROM links WHERE links.id = t.id) ORDER BY t.id LIMIT 1000
                """, logger: self.logger
            ).decode(Int64.self)
            var missingIds: [Int64] = []
            for try await id in missing { missingIds.append(id) }
            if !missingIds.isEmpty { throw CountersOfMissingLink(linkIds: missingIds) }
            for query in statements {
                for try await _ in try await connection.query(query, logger: self.logger) {}
            }
        }
    }

    /// The most counter rows in one statement (about 80 KB of parameters).
    static let counterChunk = 2_000

    static func chunks<Element>(_ rows: [Element]) -> [ArraySlice<Element>] {
        stride(from: 0, to: rows.count, by: counterChunk).map { rows[$0..<min(rows.count, $0 + counterChunk)] }
    }

    public func clickCount(linkId: Int64) async throws -> Int64 {
        try await rows(
            """
            SELECT COALESCE(SUM(count), 0)::BIGINT AS total FROM event_counters
            WHERE link_id = \(linkId) AND event = 'CLICK' AND platform <> 'CRAWLER'
            """
        ).first?.value("total", as: Int64.self) ?? 0
    }

    public func variantEventCounts(linkId: Int64, fromDay: Int) async throws -> [VariantEventCount] {
        try await rows(
            """
            SELECT variant, platform, event, SUM(count)::BIGINT AS total FROM variant_counters
            WHERE link_id = \(linkId) AND day >= \(Int64(fromDay)) GROUP BY variant, platform, event HAVING SUM(count) > 0
            ORDER BY variant COLLATE "C", platform COLLATE "C", event COLLATE "C"
            """
        ).compactMap { row in
            guard let platform = StatsPlatform(rawValue: try row.value("platform")), let event = LinkEvent(rawValue: try row.value("event"))
            else { return nil }
            return VariantEventCount(variant: try row.value("variant"), platform: platform, event: event, count: try row.value("total"))
        }
    }

    public func eventCounts(linkId: Int64, fromDay: Int) async throws -> [EventCount] {
        try await rows(
            """
            SELECT platform, event, SUM(count)::BIGINT AS total FROM event_counters
            WHERE link_id = \(linkId) AND day >= \(Int64(fromDay)) GROUP BY platform, event HAVING SUM(count) > 0
            ORDER BY platform COLLATE "C", event COLLATE "C"
            """
        ).compactMap { row in
            guard let platform = StatsPlatform(rawValue: try row.value("platform")), let event = LinkEvent(rawValue: try row.value("event"))
            else { return nil }
            return EventCount(platform: platform, event: event, count: try row.value("total"))
        }
    }
}
