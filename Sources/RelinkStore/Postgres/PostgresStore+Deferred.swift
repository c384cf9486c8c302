import Foundation
import PostgresNIO
import RelinkCore

extension PostgresStore {

    public func insertPendingClicks(_ clicks: [PendingClick]) async throws {
        // One array per column and UNNEST: 15 parameters per statement whatever the batch size, which PostgreSQL
        // parses and plans far faster than a VALUES list of 15 parameters per row. Arrays carry no NULLs here, so
        // nullable columns travel as '' (text) or 0 (numbers) and NULLIF turns them back.
        let links = ClickedLink.distinctLongLinks(of: clicks)
        if !links.isEmpty {
            // Before the clicks that name them; a link's last click is renewed so the purge leaves it alone.
            let keys = Array(links.keys)
            try await rows(
                """
                INSERT INTO clicked_links (project_id, digest, link, last_clicked_at)
                SELECT project_id, digest, link, \(Date().timeIntervalSince1970)
                FROM UNNEST(\(keys.map(\.projectId)), \(keys.map(\.digest)), \(keys.map { links[$0]! })) AS l (project_id, digest, link)
                ON CONFLICT (project_id, digest) DO UPDATE SET last_clicked_at = EXCLUDED.last_clicked_at
                """, wait: Self.batchWait)
        }
        for start in stride(from: 0, to: clicks.count, by: Self.rowsPerStatement * 5) {
            let chunk = clicks[start..<min(start + Self.rowsPerStatement * 5, clicks.count)]
            let f = chunk.map(\.fingerprint)
            let stored = chunk.map { ClickedLink.stored($0.requestedLink) }
            try await rows(
                """
                INSERT INTO pending_clicks (id, project_id, platform, link_id, app_id, requested_link, link_digest, created_at,
                    address_hash, network_hash, ip_version, os_version, device, languages, screen, time_zone, variant)
                SELECT id, project_id, platform, NULLIF(link_id, 0), NULLIF(app_id, ''), requested_link, NULLIF(link_digest, ''),
                    created_at,
                    NULLIF(address_hash, ''), NULLIF(network_hash, ''), NULLIF(ip_version, 0), NULLIF(os_version, ''),
                    NULLIF(device, ''), languages, NULLIF(screen, ''), NULLIF(time_zone, ''), NULLIF(variant, '')
                FROM UNNEST(\(chunk.map(\.id)), \(chunk.map(\.projectId)), \(chunk.map(\.platform.rawValue)),
                            \(chunk.map { $0.linkId ?? 0 }), \(chunk.map { $0.appId ?? "" }), \(stored.map(\.inline)),
                            \(stored.map { $0.digest ?? "" }),
                            \(chunk.map(\.createdAt.timeIntervalSince1970)), \(f.map { $0.addressHash ?? "" }),
                            \(f.map { $0.networkHash ?? "" }), \(f.map { Int64($0.ipVersion?.rawValue ?? 0) }),
                            \(f.map { $0.osVersion ?? "" }), \(f.map { $0.device ?? "" }),
                            \(f.map { StoreCoding.encode(languages: $0.languages) }), \(f.map { $0.screen ?? "" }),
                            \(f.map { $0.timeZone ?? "" }), \(chunk.map { $0.variant ?? "" }))
                    AS c (id, project_id, platform, link_id, app_id, requested_link, link_digest, created_at, address_hash, network_hash,
                          ip_version, os_version, device, languages, screen, time_zone, variant)
                ON CONFLICT (id) DO NOTHING
                """, wait: Self.batchWait)
        }
    }

    public func addBrowserSignals(clickId: String, screen: String?, timeZone: String?, languages: [String]) async throws -> Bool {
        let joined = StoreCoding.encode(languages: languages)
        return try await rows(
            """
            UPDATE pending_clicks SET screen = COALESCE(\(screen), screen), time_zone = COALESCE(\(timeZone), time_zone),
                languages = CASE WHEN \(joined) = '' THEN languages ELSE \(joined) END
            WHERE id = \(clickId) AND claimed_at IS NULL
            RETURNING id
            """
        ).count == 1
    }

    public func pendingClick(id: String) async throws -> PendingClick? {
        try await rows("\(unescaped: ClickedLink.selectClicks) WHERE p.id = \(id)").first.map(PendingClick.init(row:))
    }

    public func candidateClicks(
        projectId: String, platform: AppPlatform, appId: String, since: Date, until: Date, fingerprint: DeviceFingerprint,
        bounds: CandidateBounds
    ) async throws -> [PendingClick] {
        guard fingerprint.addressHash != nil || fingerprint.networkHash != nil else { return [] }
        return try await rows(
            """
            \(unescaped: ClickedLink.selectClicks)
            WHERE p.id IN (
                (SELECT id FROM pending_clicks
                 WHERE project_id = \(projectId) AND address_hash = \(fingerprint.addressHash)
                   AND created_at BETWEEN \(since.timeIntervalSince1970) AND \(until.timeIntervalSince1970)
                 ORDER BY created_at DESC LIMIT \(bounds.perAddress))
                UNION
                (SELECT id FROM pending_clicks
                 WHERE project_id = \(projectId) AND network_hash = \(fingerprint.networkHash)
                   AND created_at BETWEEN \(since.timeIntervalSince1970) AND \(until.timeIntervalSince1970)
                 ORDER BY created_at DESC LIMIT \(bounds.perNetwork))
            )
              AND p.platform = \(platform.rawValue) AND p.app_id = \(appId) AND (p.claimed_at IS NULL OR p.confidence = 'WEAK')
            ORDER BY p.created_at DESC
            """
        ).map(PendingClick.init(row:))
    }

    public func linkClicks(linkId: Int64, limit: Int) async throws -> [PendingClick] {
        try await rows(
            """
            \(unescaped: ClickedLink.selectClicks) WHERE p.link_id = \(linkId) ORDER BY p.created_at DESC LIMIT \(limit)
            """
        ).map(PendingClick.init(row:))
    }

    public func addressActivity(
        projectId: String, addressHash: String, since: Date, recentSince: Date, platform: AppPlatform, fingerprint: DeviceFingerprint,
        limit: Int
    ) async throws -> AddressActivity {
        let row = try await rows(
            """
            SELECT COUNT(*)::BIGINT AS clicks,
                   COUNT(*) FILTER (WHERE platform = \(platform.rawValue) AND os_version IS NOT DISTINCT FROM \(fingerprint.osVersion)
                                    AND device IS NOT DISTINCT FROM \(fingerprint.device))::BIGINT AS similar,
                   COUNT(*) FILTER (WHERE created_at >= \(recentSince.timeIntervalSince1970))::BIGINT AS recent,
                   MIN(created_at) AS oldest
            FROM (
                SELECT platform, os_version, device, created_at FROM pending_clicks
                WHERE project_id = \(projectId) AND address_hash = \(addressHash) AND created_at >= \(since.timeIntervalSince1970)
                ORDER BY created_at DESC LIMIT \(limit)
            ) AS recent
            """
        ).first
        let clicks = Int(try row?.value("clicks", as: Int64.self) ?? 0)
        let oldest = try row?.value("oldest", as: Double?.self) ?? nil
        return AddressActivity(
            clicks: clicks, similarClicks: Int(try row?.value("similar", as: Int64.self) ?? 0),
            recentClicks: Int(try row?.value("recent", as: Int64.self) ?? 0),
            oldestCounted: clicks >= limit ? oldest.map(Date.init(timeIntervalSince1970:)) : nil)
    }

    public func recordShadowMatch(projectId: String, day: Int, confidence: AttributionConfidence?, sameClick: Bool) async throws {
        let label = ShadowMatchCount.label(confidence)
        _ = try await rows(
            """
            INSERT INTO shadow_matches (project_id, day, confidence, same_click, count) VALUES (\(projectId), \(day), \(label), \(sameClick), 1)
            ON CONFLICT (project_id, day, confidence, same_click) DO UPDATE SET count = shadow_matches.count + 1
            """)
    }

    public func shadowMatches(projectId: String, fromDay: Int) async throws -> [ShadowMatchCount] {
        try await rows(
            """
            SELECT confidence, same_click, SUM(count)::BIGINT AS total FROM shadow_matches
            WHERE project_id = \(projectId) AND day >= \(fromDay) GROUP BY confidence, same_click ORDER BY confidence, same_click
            """
        ).map { row in
            ShadowMatchCount(
                confidence: ShadowMatchCount.confidence(label: try row.value("confidence", as: String.self)),
                sameClick: try row.value("same_click", as: Bool.self), count: try row.value("total", as: Int64.self))
        }
    }

    public func claim(
        clickId: String?, confidence: AttributionConfidence?, projectId: String, installId: String?, response: String, at date: Date,
        events: EventDeliveries<String>?
    ) async throws -> ClaimOutcome {
        let logger = self.logger
        let (outcome, leftOut) = try await transaction { connection -> (ClaimOutcome, Int) in
            if let installId {
                // Claims of one install wait for each other (a retry racing the first try); claims of different
                // installs do not.
                try await connection.query(
                    "SELECT pg_advisory_xact_lock(hashtext(\(projectId + "\u{1F}" + installId)))", logger: logger)
                let existing = try await connection.query(
                    "SELECT * FROM install_claims WHERE project_id = \(projectId) AND install_id = \(installId)", logger: logger
                ).collect().map(PostgresRandomAccessRow.init)
                if let row = existing.first { return (.answeredBefore(try InstallClaim(row: row)), 0) }
            }
            var takenBack = false
            if let clickId {
                // Locked first, so that what it was (claimed weakly, or not at all) is what the UPDATE below changes: a
                // claim waiting for another's commit reads the row as that one left it.
                let was = try await connection.query(
                    "SELECT claimed_at IS NOT NULL AS claimed FROM pending_clicks WHERE id = \(clickId) AND project_id = \(projectId) FOR UPDATE",
                    logger: logger
                ).collect().map(PostgresRandomAccessRow.init)
                takenBack = try was.first?.value("claimed", as: Bool.self) ?? false
                // The conditional UPDATE is the claim: of concurrent claims, one changes the row, the others see
                // it claimed (they wait on its row lock, then re-check `claimed_at IS NULL`) and change nothing.
                let taken = try await connection.query(
                    """
                    UPDATE pending_clicks SET claimed_at = \(date.timeIntervalSince1970), confidence = \(confidence?.rawValue)
                    WHERE id = \(clickId) AND project_id = \(projectId)
                      AND (claimed_at IS NULL OR (confidence = 'WEAK' AND \(confidence?.rawValue ?? "WEAK") <> 'WEAK'))
                    RETURNING id
                    """, logger: logger
                ).collect()
                if taken.isEmpty { return (.clickTaken, 0) }
            }
            if let installId {
                try await connection.query(
                    """
                    INSERT INTO install_claims (project_id, install_id, response, created_at)
                    VALUES (\(projectId), \(installId), \(response), \(date.timeIntervalSince1970))
                    """, logger: logger)
            }
            if takenBack { return (.takenBack, 0) }
            guard let clickId, let events else { return (.claimed, 0) }
            return (.claimed, try await self.enqueue(events.make(clickId), maximumPending: events.maximumPending, on: connection))
        }
        if leftOut > 0 { events?.leftOut(leftOut) }
        return outcome
    }

    public func installClaim(projectId: String, installId: String) async throws -> InstallClaim? {
        try await rows("SELECT * FROM install_claims WHERE project_id = \(projectId) AND install_id = \(installId)")
            .first.map(InstallClaim.init(row:))
    }

    public func purgeDeferredData(projectId: String, clicksBefore: Date, claimsBefore: Date, limit: Int) async throws -> Int {
        let clicksBefore = clicksBefore.timeIntervalSince1970
        let clicks = try await rows(
            """
            DELETE FROM pending_clicks WHERE ctid IN (
                SELECT ctid FROM pending_clicks WHERE project_id = \(projectId) AND created_at < \(clicksBefore) LIMIT \(limit))
            RETURNING 1 AS one
            """, wait: Self.batchWait)
        let links = try await rows(
            """
            DELETE FROM clicked_links WHERE ctid IN (
                SELECT ctid FROM clicked_links
                WHERE project_id = \(projectId) AND last_clicked_at < \(clicksBefore - ClickedLink.graceAfterLastClick) LIMIT \(limit))
            RETURNING 1 AS one
            """, wait: Self.batchWait)
        let claims = try await rows(
            """
            DELETE FROM install_claims WHERE ctid IN (
                SELECT ctid FROM install_claims WHERE project_id = \(projectId) AND created_at < \(claimsBefore.timeIntervalSince1970) LIMIT \(limit))
            RETURNING 1 AS one
            """, wait: Self.batchWait)
        _ = try await rows(
            "DELETE FROM shadow_matches WHERE project_id = \(projectId) AND day < \(ShadowMatchCount.oldestKeptDay(now: Date()))",
            wait: Self.batchWait)
        return clicks.count + links.count + claims.count
    }

    public func projectsWithDeferredData() async throws -> Set<String> {
        var projects: Set<String> = []
        for table in DeferredTables.keyedByProject {
            for row in try await rows(PostgresQuery(unsafeSQL: DeferredTables.distinctProjects(table)), wait: Self.batchWait) {
                projects.insert(try row.value("id", as: String.self))
            }
        }
        return projects
    }

    public func pendingClickCount(projectId: String, limit: Int) async throws -> Int {
        let rows = try await rows(
            "SELECT COUNT(*) AS held FROM (SELECT 1 FROM pending_clicks WHERE project_id = \(projectId) LIMIT \(max(0, limit))) AS counted",
            wait: Self.batchWait)
        return try rows.first?.value("held", as: Int.self) ?? 0
    }

    public func setting(_ key: String) async throws -> String? {
        try await rows("SELECT value FROM settings WHERE key = \(key)").first?.value("value")
    }

    public func settingInsertingIfAbsent(_ key: String, value: String) async throws -> String {
        // Instances starting together race to set the secret: the first insert wins and every instance reads it.
        try await rows("INSERT INTO settings (key, value) VALUES (\(key), \(value)) ON CONFLICT (key) DO NOTHING")
        return try await setting(key) ?? value
    }

    public func removeSetting(_ key: String) async throws -> Bool {
        try await !rows("DELETE FROM settings WHERE key = \(key) RETURNING key").isEmpty
    }
}

// MARK: - Webhooks

extension PostgresStore {
    public func insertWebhook(
        projectId: String, url: String, events: [String], secret: String, maximumPerProject: Int
    ) async throws -> WebhookRecord? {
        let now = StoreCoding.stored(Date())
        let logger = self.logger
        let id = try await transaction { connection -> Int64? in
            // Adds to one project wait for each other, on every instance: each counts what the one before added.
            let lockName = "relink webhooks " + projectId
            try await connection.query("SELECT pg_advisory_xact_lock(hashtext(\(lockName)))", logger: logger)
            let counted = try await connection.query(
                "SELECT COUNT(*) FROM webhooks WHERE project_id = \(projectId) AND deleted_at IS NULL", logger: logger
            ).collect()
            guard try counted.first?.decode(Int64.self) ?? 0 < maximumPerProject else { return nil }
            let inserted = try await connection.query(
                """
                INSERT INTO webhooks (project_id, url, events, secret, created_at)
                VALUES (\(projectId), \(url), \(events.joined(separator: ",")), \(secret), \(now.timeIntervalSince1970)) RETURNING id
                """, logger: logger
            ).collect()
            guard let id = try inserted.first?.decode(Int64.self) else { throw StoreError.unavailable("the insert returned no id") }
            return id
        }
        return id.map { WebhookRecord(id: $0, projectId: projectId, url: url, events: events, secret: secret, createdAt: now) }
    }

    public func webhooks(projectId: String?) async throws -> [WebhookRecord] {
        let query: PostgresQuery =
            projectId.map {
                "SELECT \(unescaped: WebhookRecord.columns) FROM webhooks WHERE deleted_at IS NULL AND project_id = \($0) ORDER BY id"
            } ?? "SELECT \(unescaped: WebhookRecord.columns) FROM webhooks WHERE deleted_at IS NULL ORDER BY id"
        return try await rows(query).map { try WebhookRecord(row: $0) }
    }

    public func deleteWebhook(id: Int64, projectId: String) async throws -> Bool {
        try await rows(
            """
            UPDATE webhooks SET deleted_at = \(Date().timeIntervalSince1970)
            WHERE id = \(id) AND project_id = \(projectId) AND deleted_at IS NULL RETURNING id
            """
        ).count == 1
    }

    public func purgeDeletedWebhooks(limit: Int) async throws -> Int {
        let removed = try await rows(
            """
            DELETE FROM webhook_deliveries WHERE ctid IN (
                SELECT d.ctid FROM webhooks w JOIN webhook_deliveries d ON d.webhook_id = w.id WHERE w.deleted_at IS NOT NULL LIMIT \(limit))
            RETURNING 1 AS one
            """, wait: Self.batchWait
        ).count
        try await rows(
            """
            DELETE FROM webhooks w WHERE deleted_at IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.webhook_id = w.id)
            """, wait: Self.batchWait)
        return removed
    }

    @discardableResult
    public func enqueueDeliveries(_ deliveries: [WebhookDelivery], maximumPending: Int) async throws -> Int {
        let deliveries = Self.inWebhookOrder(deliveries)
        var dropped = 0
        for start in stride(from: 0, to: deliveries.count, by: Self.rowsPerStatement) {
            let chunk = deliveries[start..<min(start + Self.rowsPerStatement, deliveries.count)]
            let rows = try await rows(Self.enqueueing(chunk, maximumPending: maximumPending), wait: Self.batchWait)
            dropped += Int(try rows.first?.value("dropped", as: Int64.self) ?? 0)
        }
        return dropped
    }

    /// `enqueueDeliveries` in the caller's transaction.
    /// - Returns: how many were left out for their webhook's cap.
    func enqueue(_ deliveries: [WebhookDelivery], maximumPending: Int, on connection: PostgresConnection) async throws -> Int {
        let deliveries = Self.inWebhookOrder(deliveries)
        var dropped = 0
        for start in stride(from: 0, to: deliveries.count, by: Self.rowsPerStatement) {
            let chunk = deliveries[start..<min(start + Self.rowsPerStatement, deliveries.count)]
            let rows = try await connection.query(Self.enqueueing(chunk, maximumPending: maximumPending), logger: logger).collect()
            dropped += Int(try rows.first?.decode(Int64.self) ?? 0)
        }
        return dropped
    }

    /// `deliveries` by webhook id, each webhook's in their order. Each statement's trigger locks its webhooks' counters
    /// in the order of their ids; so sorted before it is split into statements, a write locks them in that order
    /// across its statements too, and writes at once never deadlock.
    static func inWebhookOrder(_ deliveries: [WebhookDelivery]) -> [WebhookDelivery] {
        deliveries.enumerated().sorted { ($0.element.webhookId, $0.offset) < ($1.element.webhookId, $1.offset) }.map(\.element)
    }

    /// One statement writing `chunk` to the outbox, each delivery unless its webhook is full; its one row's `dropped`
    /// says how many were left out.
    static func enqueueing(_ chunk: ArraySlice<WebhookDelivery>, maximumPending: Int) -> PostgresQuery {
        """
        WITH d AS (
            SELECT * FROM UNNEST(\(chunk.map(\.id)), \(chunk.map(\.webhookId)), \(chunk.map(\.event)), \(chunk.map(\.payload)),
                                 \(chunk.map(\.createdAt.timeIntervalSince1970)), \(chunk.map(\.nextAttemptAt.timeIntervalSince1970)))
                WITH ORDINALITY AS d (id, webhook_id, event, payload, created_at, next_attempt_at, n)
        ), room AS (
            -- Locked as the deliveries' foreign key will lock them: a webhook removed, or purged, while this runs is
            -- skipped here rather than failing the insert (and the write it is part of). `pending` is kept by a trigger.
            SELECT w.id AS webhook_id, \(maximumPending) - w.pending AS room
            FROM webhooks w WHERE w.id IN (SELECT webhook_id FROM d) AND w.deleted_at IS NULL FOR KEY SHARE
        ), ranked AS (
            SELECT d.*, room.room, ROW_NUMBER() OVER (PARTITION BY d.webhook_id ORDER BY d.n) AS k
            FROM d JOIN room ON room.webhook_id = d.webhook_id
        ), inserted AS (
            INSERT INTO webhook_deliveries (id, webhook_id, event, payload, created_at, attempts, next_attempt_at, status)
            SELECT id, webhook_id, event, payload, created_at, 0, next_attempt_at, 'PENDING' FROM ranked WHERE k <= room
            ON CONFLICT (id) DO NOTHING
        )
        SELECT COUNT(*) AS dropped FROM ranked WHERE k > room
        """
    }

    public func leaseDeliveries(now: Date, limit: Int, lease: Duration) async throws -> [(WebhookDelivery, WebhookRecord)] {
        let (seconds, attoseconds) = lease.components
        let until = now.timeIntervalSince1970 + Double(seconds) + Double(attoseconds) / 1e18
        let time = now.timeIntervalSince1970
        // SKIP LOCKED: instances leasing at once each get other rows, so every delivery goes out from one of them.
        return try await rows(
            """
            WITH flying AS (
                SELECT d.webhook_id, w.project_id, count(*) AS c FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
                WHERE d.status = 'PENDING' AND d.leased_until >= \(time) GROUP BY d.webhook_id, w.project_id
            ), project_flying AS (
                SELECT project_id, sum(c) AS c FROM flying GROUP BY project_id
            ), ranked AS (
                -- Each webhook's first due deliveries, from the index (webhook_deliveries_pending), whatever the backlog.
                SELECT x.id, x.next_attempt_at, x.webhook_id, w.project_id,
                    ROW_NUMBER() OVER (PARTITION BY x.webhook_id ORDER BY x.next_attempt_at, x.id) AS n
                FROM webhooks w CROSS JOIN LATERAL (
                    SELECT y.id, y.next_attempt_at, y.webhook_id FROM webhook_deliveries y
                    WHERE y.webhook_id = w.id AND y.status = 'PENDING' AND y.next_attempt_at <= \(time)
                        AND (y.leased_until IS NULL OR y.leased_until < \(time))
                    ORDER BY y.next_attempt_at, y.id LIMIT \(Self.webhookDeliveriesInFlight)
                ) x
                WHERE w.deleted_at IS NULL
            ), \(unescaped: WebhookLease.loadedCTEs), candidates AS (
                SELECT id FROM loaded \(unescaped: WebhookLease.order) LIMIT \(limit)
            ), due AS (
                -- The conditions again: a row another instance has just leased is read afresh here, and skipped.
                SELECT id FROM webhook_deliveries
                WHERE id IN (SELECT id FROM candidates) AND status = 'PENDING'
                    AND (leased_until IS NULL OR leased_until < \(time))
                FOR UPDATE SKIP LOCKED
            ), leased AS (
                UPDATE webhook_deliveries d SET leased_until = \(until) FROM due WHERE d.id = due.id RETURNING d.*
            )
            SELECT \(unescaped: WebhookDelivery.leasedColumns) FROM leased d JOIN webhooks w ON w.id = d.webhook_id
            """
        ).map { (try WebhookDelivery(row: $0), try WebhookRecord(row: $0, prefix: "w_")) }
    }

    public func recordAttempt(deliveryId: String, delivered: Bool, status: Int?, error: String?, retryAt: Date?, at now: Date) async throws {
        let state = delivered ? "DELIVERED" : (retryAt == nil ? "FAILED" : "PENDING")
        try await rows(
            """
            UPDATE webhook_deliveries SET attempts = attempts + 1, status = \(state), last_status = \(status.map(Int64.init)),
                last_error = \(error), next_attempt_at = COALESCE(\(retryAt?.timeIntervalSince1970), next_attempt_at),
                delivered_at = \(delivered ? now.timeIntervalSince1970 : nil), leased_until = NULL
            WHERE id = \(deliveryId)
            """)
    }

    public func deliveries(webhookId: Int64, limit: Int) async throws -> [WebhookDelivery] {
        try await rows(
            """
            SELECT \(unescaped: WebhookDelivery.columns) FROM webhook_deliveries WHERE webhook_id = \(webhookId)
            ORDER BY created_at DESC, id LIMIT \(limit)
            """
        ).map { try WebhookDelivery(row: $0) }
    }

    public func purgeFinishedDeliveries(before: Date, limit: Int) async throws -> Int {
        let rows = try await rows(
            """
            WITH gone AS (
                DELETE FROM webhook_deliveries WHERE id IN (
                    SELECT id FROM webhook_deliveries
                    WHERE status IN ('DELIVERED', 'FAILED') AND next_attempt_at < \(before.timeIntervalSince1970) LIMIT \(limit)
                ) RETURNING 1
            )
            SELECT COUNT(*) AS removed FROM gone
            """, wait: Self.batchWait)
        return Int(try rows.first?.value("removed", as: Int64.self) ?? 0)
    }
}
