import Foundation
import GRDB
import PostgresNIO
import RelinkCore
import Testing

@testable import RelinkStore

/// The behaviour every store must have, run against SQLite and (when a server is given) PostgreSQL.
@Suite("Store conformance")
struct StoreConformanceTests {
    static func draft(_ code: String, key: String? = nil, link: String = "https://pictlink.com/a") -> ShortLinkDraft {
        var parameters = LinkParameters()
        parameters.link = link
        return ShortLinkDraft(
            projectId: "pictlink", domain: "https://go.pictlink.com", code: code, longLink: "https://go.pictlink.com/?link=\(link)",
            parameters: parameters, suffixOption: .short, idempotencyKey: key, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test(arguments: StoreKind.available) func countsTheLinksWhoseRulesAskForACountry(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            #expect(try await store.countLinksWithCountryRules() == 0)
            func draft(_ code: String, _ condition: RuleCondition) -> ShortLinkDraft {
                var draft = Self.draft(code)
                draft.rules = LinkRules(rules: [LinkRule(when: condition, then: DestinationOverride(link: "https://pictlink.com/r"))])
                return draft
            }
            _ = try await store.insertLink(Self.draft("plain"))
            _ = try await store.insertLink(draft("spain", RuleCondition(countries: ["ES"])))
            _ = try await store.insertLink(draft("nobody", RuleCondition(countries: [])))
            _ = try await store.insertLink(draft("language", RuleCondition(languages: ["pt"])))
            #expect(try await store.countLinksWithCountryRules() == 1)
        }
    }

    @Test(arguments: StoreKind.available) func insertsAndFindsLinks(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let record = try await store.insertLink(Self.draft("Ab3x", key: "k1"))
            #expect(record.id > 0)
            #expect(record.shortLink == "https://go.pictlink.com/Ab3x")
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "Ab3x") == record)
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "ab3x") == nil)
            #expect(try await store.link(idempotencyKey: "k1") == record)
            #expect(try await store.link(domain: "https://other.example", code: "Ab3x") == nil)
        }
    }

    @Test(arguments: StoreKind.available) func importedLinksKeepCodesFlagsAndNamesAndSkipTakenCodes(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let existing = try await store.insertLink(Self.draft("taken"))
            var archived = Self.draft("AbC", link: "https://pictlink.com/archived")
            archived.archived = true
            archived.name = "Spring ☀️, \"2021\""
            archived.suffixOption = .custom
            let lower = Self.draft("abc", link: "https://pictlink.com/lower")
            let skipped = try await store.importLinks([archived, lower, Self.draft("taken", link: "https://pictlink.com/other")])
            #expect(skipped == ["https://go.pictlink.com\ttaken"])
            let imported = try #require(try await store.link(domain: "https://go.pictlink.com", code: "AbC"))
            #expect(imported.archived && imported.name == "Spring ☀️, \"2021\"" && imported.suffixOption == .custom)
            #expect(imported.createdAt == Date(timeIntervalSince1970: 1_700_000_000))
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "abc")?.parameters.link == "https://pictlink.com/lower")
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "taken") == existing)
            #expect(!existing.archived && existing.name == nil)
            // Run again: nothing new.
            #expect(try await store.importLinks([archived, lower]).count == 2)
            var renamed = imported
            renamed.archived = false
            renamed.name = nil
            _ = try await store.updateLink(id: renamed.id) { [renamed] _ in renamed }
            let saved = try #require(try await store.link(domain: "https://go.pictlink.com", code: "AbC"))
            #expect(!saved.archived && saved.name == nil)
            #expect(try await store.importLinks([]).isEmpty)
        }
    }

    @Test(arguments: StoreKind.available) func aCodeIsTakenOncePerDomain(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            _ = try await store.insertLink(Self.draft("Ab3x"))
            await #expect(throws: StoreError.codeTaken(domain: "https://go.pictlink.com", code: "Ab3x")) {
                try await store.insertLink(Self.draft("Ab3x"))
            }
            var other = Self.draft("Ab3x")
            other.domain = "https://pictlink.com/links"
            _ = try await store.insertLink(other)
        }
    }

    @Test(arguments: StoreKind.available) func anIdempotencyKeyIsTakenOnce(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            _ = try await store.insertLink(Self.draft("a1", key: "same"))
            await #expect(throws: StoreError.idempotencyKeyTaken) { try await store.insertLink(Self.draft("a2", key: "same")) }
            // Links without a key (custom suffixes) never collide on it.
            _ = try await store.insertLink(Self.draft("c1"))
            _ = try await store.insertLink(Self.draft("c2"))
        }
    }

    @Test(arguments: StoreKind.available) func concurrentInsertsOfOneCodeLeaveOneWinner(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let results = await withTaskGroup(of: Bool.self) { group in
                for index in 0..<50 {
                    group.addTask { (try? await store.insertLink(Self.draft("same", link: "https://pictlink.com/\(index)"))) != nil }
                }
                return await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(results.filter { $0 }.count == 1)
        }
    }

    /// Changes made at once apply one after the other: each is given the link as the one before it left it, so none
    /// is written over (a PATCH of `disabled` racing a rename, on one instance or several).
    @Test(arguments: StoreKind.available) func changesAtOnceAreNotLost(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let link = try await store.insertLink(Self.draft("race"))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        _ = try await store.updateLink(id: link.id) { stored in
                            var renamed = stored
                            renamed.name = (stored.name ?? "") + "x"
                            return renamed
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "race")?.name == String(repeating: "x", count: 20))
        }
    }

    @Test(arguments: StoreKind.available) func updatesAndPages(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            var ids: [Int64] = []
            for index in 0..<5 { ids.append(try await store.insertLink(Self.draft("c\(index)")).id) }
            let first = try await store.links(projectId: "pictlink", beforeId: nil, limit: 2)
            #expect(first.map(\.id) == [ids[4], ids[3]])
            let second = try await store.links(projectId: "pictlink", beforeId: first.last!.id, limit: 10)
            #expect(second.map(\.id) == [ids[2], ids[1], ids[0]])
            #expect(try await store.links(projectId: "other", beforeId: nil, limit: 10).isEmpty)

            var link = try #require(try await store.link(domain: "https://go.pictlink.com", code: "c0"))
            link.disabled = true
            link.expiresAt = Date(timeIntervalSince1970: 1_900_000_000)
            link.parameters.ofl = "https://pictlink.com/desk"
            let (stored, written) = try await store.updateLink(id: link.id) { [link] _ in link }
            let saved = try #require(written)
            #expect(!stored.disabled && stored.parameters.ofl == nil, "the link as it was")
            #expect(saved.updatedAt > link.createdAt)
            let reread = try #require(try await store.link(domain: "https://go.pictlink.com", code: "c0"))
            #expect(reread.disabled)
            #expect(reread.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
            #expect(reread.parameters.ofl == "https://pictlink.com/desk")
            #expect(!reread.isActive(at: Date(timeIntervalSince1970: 1_800_000_000)))
            #expect(reread == saved)
            await #expect(throws: StoreError.notFound) { try await store.updateLink(id: 999) { $0 } }
            // A change that leaves the link writes nothing; one that throws writes nothing and throws.
            let unchanged = try await store.updateLink(id: link.id) { _ in nil }
            #expect(unchanged.saved == nil && unchanged.stored == reread)
            struct Refused: Error {}
            await #expect(throws: Refused.self) {
                try await store.updateLink(id: link.id) { stored in
                    var renamed = stored
                    renamed.name = "never"
                    _ = renamed
                    throw Refused()
                }
            }
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "c0") == reread)
        }
    }

    @Test(arguments: StoreKind.available) func apiKeys(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let key = try await store.insertAPIKey(projectId: "pictlink", name: "ci", keyHash: "h1", keyPrefix: "rl_abcd")
            _ = try await store.insertAPIKey(projectId: "fieldnotes", name: nil, keyHash: "h2", keyPrefix: "rl_efgh")
            #expect(try await store.apiKey(hash: "h1") == key)
            #expect(try await store.apiKey(hash: "nope") == nil)
            #expect(try await store.apiKeys(projectId: nil).count == 2)
            #expect(try await store.apiKeys(projectId: "pictlink").map(\.name) == ["ci"])
            let revoked = try #require(try await store.revokeAPIKey(id: key.id))
            #expect(revoked.isRevoked)
            #expect(try await store.apiKey(hash: "h1")?.isRevoked == true)
            #expect(try await store.revokeAPIKey(id: 999) == nil)
        }
    }

    @Test(arguments: StoreKind.available) func eventCountersAddUp(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let link = try await store.insertLink(Self.draft("e1"))
            let today = EventCounterKey.day(of: Date())
            func key(_ day: Int, _ platform: StatsPlatform, _ event: LinkEvent) -> EventCounterKey {
                EventCounterKey(linkId: link.id, day: day, platform: platform, event: event)
            }
            try await store.addEventCounts([key(today, .ios, .click): 3, key(today, .android, .click): 2])
            try await store.addEventCounts([key(today, .ios, .click): 4, key(today - 10, .ios, .click): 100, key(today, .desktop, .redirect): 1])
            let recent = try await store.eventCounts(linkId: link.id, fromDay: today - 6)
            #expect(
                Set(recent) == [
                    EventCount(platform: .android, event: .click, count: 2), EventCount(platform: .desktop, event: .redirect, count: 1),
                    EventCount(platform: .ios, event: .click, count: 7),
                ])
            let all = try await store.eventCounts(linkId: link.id, fromDay: today - 30)
            #expect(all.first { $0.platform == .ios && $0.event == .click }?.count == 107)
        }
    }

    /// Counters belong to links that exist: a batch naming a link that does not is refused as a whole (SQLite's
    /// foreign keys, PostgreSQL's flush), and a link's row deleted by hand takes its counters with it (SQLite's
    /// foreign keys, PostgreSQL's trigger; docs/operations.md#deleting-links-by-hand).
    @Test(arguments: StoreKind.available) func countersOfAMissingLinkAreRefusedAndGoWithTheirLink(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let link = try await store.insertLink(Self.draft("kept"))
            let other = try await store.insertLink(Self.draft("deleted"))
            let today = EventCounterKey.day(of: Date())
            let missing = other.id + 1_000
            for key in [
                EventCounterKey(linkId: missing, day: today, platform: .ios, event: .click),
                EventCounterKey(linkId: missing, day: today, platform: .ios, event: .click, variant: "a"),
                EventCounterKey(linkId: missing, day: today, platform: .ios, event: .appInstall, confidence: .unique),
            ] {
                let refusal = await #expect(throws: CountersOfMissingLink.self, "\(key)") {
                    try await store.addEventCounts([EventCounterKey(linkId: link.id, day: today, platform: .ios, event: .click): 1, key: 1])
                }
                #expect(refusal?.linkIds == [missing])
            }
            #expect(try await store.eventCounts(linkId: link.id, fromDay: today).isEmpty)
            let counted: [EventCounterKey: Int64] = [
                EventCounterKey(linkId: other.id, day: today, platform: .android, event: .click): 2,
                EventCounterKey(linkId: other.id, day: today, platform: .android, event: .click, variant: "b"): 1,
                EventCounterKey(linkId: other.id, day: today, platform: .android, event: .appInstall, confidence: .weak): 1,
                EventCounterKey(linkId: link.id, day: today, platform: .ios, event: .click): 3,
            ]
            try await store.addEventCounts(counted)
            try await Self.execute("DELETE FROM links WHERE id = \(other.id)", in: store)
            for table in ["event_counters", "variant_counters", "confidence_counters"] {
                #expect(try await Self.integer("SELECT COUNT(*) AS n FROM \(table) WHERE link_id = \(other.id)", in: store) == 0, "\(table)")
            }
            #expect(try await store.eventCounts(linkId: link.id, fromDay: today) == [EventCount(platform: .ios, event: .click, count: 3)])
        }
    }

    /// Counters under an id no link has (left by a restore, or by a sequence reset after a hand delete), on every
    /// counter table and with the foreign keys out of the way as a restore's own load would have them.
    static func strayCounters(linkId: Int64, in store: any RelinkStore) async throws {
        let day = EventCounterKey.day(of: Date())
        let sql = """
            INSERT INTO event_counters (link_id, day, platform, event, count) VALUES (\(linkId), \(day), 'IOS', 'CLICK', 7);
            INSERT INTO variant_counters (link_id, day, variant, platform, event, count) VALUES (\(linkId), \(day), 'a', 'IOS', 'CLICK', 7);
            INSERT INTO confidence_counters (link_id, day, confidence, count) VALUES (\(linkId), \(day), 'UNIQUE', 7);
            """
        for statement in sql.split(separator: "\n") { try await withoutForeignKeys(String(statement), in: store) }
    }

    static func counterRows(linkId: Int64, in store: any RelinkStore) async throws -> [String: Int64] {
        var rows: [String: Int64] = [:]
        for table in ["event_counters", "variant_counters", "confidence_counters"] {
            rows[table] = try await integer("SELECT COUNT(*) AS n FROM \(table) WHERE link_id = \(linkId)", in: store)
        }
        return rows
    }

    static let noCounterRows = ["event_counters": Int64(0), "variant_counters": 0, "confidence_counters": 0]

    /// A new link, minted or imported, never inherits counters stored under its id before it existed.
    @Test(arguments: StoreKind.available) func aNewLinkNeverInheritsCountersUnderItsId(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let first = try await store.insertLink(Self.draft("first"))
            try await Self.strayCounters(linkId: first.id + 1, in: store)
            #expect(
                try await Self.counterRows(linkId: first.id + 1, in: store) == ["event_counters": 1, "variant_counters": 1, "confidence_counters": 1])
            let minted = try await store.insertLink(Self.draft("second"))
            try #require(minted.id == first.id + 1)
            #expect(try await Self.counterRows(linkId: minted.id, in: store) == Self.noCounterRows)
            #expect(try await store.clickCount(linkId: minted.id) == 0)

            try await Self.strayCounters(linkId: minted.id + 1, in: store)
            #expect(try await store.importLinks([Self.draft("third")]).isEmpty)
            let imported = try #require(try await store.link(domain: "https://go.pictlink.com", code: "third"))
            try #require(imported.id == minted.id + 1)
            #expect(try await Self.counterRows(linkId: imported.id, in: store) == Self.noCounterRows)

            // A data-only restore loads the tables in name order, a link's counters before the link: its rows keep them.
            let restoredId = imported.id + 100
            try await Self.strayCounters(linkId: restoredId, in: store)
            try await Self.withoutForeignKeys(
                """
                INSERT INTO links (id, project_id, domain, code, long_link, parameters, suffix_option, created_at, updated_at)
                VALUES (\(restoredId), 'pictlink', 'https://go.pictlink.com', 'restored', 'https://go.pictlink.com/?link=https://pictlink.com/r',
                        '{"link":"https://pictlink.com/r"}', 'SHORT', 0, 0)
                """, in: store)
            #expect(
                try await Self.counterRows(linkId: restoredId, in: store) == ["event_counters": 1, "variant_counters": 1, "confidence_counters": 1])
        }
    }

    /// Runs `sql` by hand, as a restore does: on SQLite with foreign keys off.
    static func withoutForeignKeys(_ sql: String, in store: any RelinkStore) async throws {
        if let sqlite = store as? SQLiteStore {
            try await sqlite.writer.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                try db.execute(sql: sql)
            }
        } else {
            _ = try await #require(store as? PostgresStore).rows(PostgresQuery(unsafeSQL: sql))
        }
    }

    /// A link deleted by hand in SQL takes its counters along: on PostgreSQL, which keeps no foreign key on them, and
    /// on SQLite with foreign keys off (the sqlite3 shell's default); on PostgreSQL a TRUNCATE of the links too.
    @Test(arguments: StoreKind.available) func aLinkDeletedByHandTakesItsCounters(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let kept = try await store.insertLink(Self.draft("kept"))
            let deleted = try await store.insertLink(Self.draft("deleted"))
            let today = EventCounterKey.day(of: Date())
            var counted: [EventCounterKey: Int64] = [:]
            for link in [kept, deleted] {
                counted[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .click)] = 2
                counted[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .click, variant: "b")] = 1
                counted[EventCounterKey(linkId: link.id, day: today, platform: .android, event: .appInstall, confidence: .weak)] = 1
            }
            try await store.addEventCounts(counted)
            try await Self.withoutForeignKeys("DELETE FROM links WHERE id = \(deleted.id)", in: store)
            #expect(try await Self.counterRows(linkId: deleted.id, in: store) == Self.noCounterRows)
            let keptRows = try await Self.counterRows(linkId: kept.id, in: store)
            #expect(keptRows.count == 3 && keptRows.values.allSatisfy { $0 > 0 }, "\(keptRows)")

            guard let postgres = store as? PostgresStore else { return }
            _ = try await postgres.rows(PostgresQuery(unsafeSQL: "TRUNCATE links RESTART IDENTITY"))
            #expect(try await Self.counterRows(linkId: kept.id, in: store) == Self.noCounterRows)
            let again = try await store.insertLink(Self.draft("again"))
            #expect(again.id == 1)
            #expect(try await Self.counterRows(linkId: again.id, in: store) == Self.noCounterRows)
            // The links truncated with some of their counters in one statement (a reset by hand).
            try await store.addEventCounts([
                EventCounterKey(linkId: again.id, day: today, platform: .android, event: .click): 1,
                EventCounterKey(linkId: again.id, day: today, platform: .android, event: .click, variant: "b"): 1,
                EventCounterKey(linkId: again.id, day: today, platform: .android, event: .appInstall, confidence: .weak): 1,
            ])
            _ = try await postgres.rows(PostgresQuery(unsafeSQL: "TRUNCATE links, event_counters RESTART IDENTITY"))
            #expect(try await Self.counterRows(linkId: again.id, in: store) == Self.noCounterRows)
        }
    }

    /// A batch larger than one statement takes (PostgreSQL writes counters 2,000 rows a statement): every row counted
    /// once, the totals and the variants alike.
    @Test(arguments: StoreKind.available) func aLargeCounterBatchCountsEveryRowOnce(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let links = [try await store.insertLink(Self.draft("big1")), try await store.insertLink(Self.draft("big2"))]
            let today = EventCounterKey.day(of: Date())
            var batch: [EventCounterKey: Int64] = [:]
            for link in links {
                for day in (today - 2_499)...today {
                    batch[EventCounterKey(linkId: link.id, day: day, platform: .ios, event: .click)] = Int64(1 + day % 3)
                    batch[EventCounterKey(linkId: link.id, day: day, platform: .android, event: .redirect, variant: day % 2 == 0 ? "a" : "b")] = 2
                }
            }
            try await store.addEventCounts(batch)
            try await store.addEventCounts(batch)
            let expectedClicks = 2 * ((today - 2_499)...today).reduce(Int64(0)) { $0 + Int64(1 + $1 % 3) }
            for link in links {
                let counts = try await store.eventCounts(linkId: link.id, fromDay: today - 2_499)
                #expect(
                    Set(counts) == [
                        EventCount(platform: .ios, event: .click, count: expectedClicks),
                        EventCount(platform: .android, event: .redirect, count: 10_000),
                    ])
            }
        }
    }

    @Test(arguments: StoreKind.available) func variantCountersAddUpBesideTheTotals(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let link = try await store.insertLink(Self.draft("v1"))
            let today = EventCounterKey.day(of: Date())
            func key(_ variant: String?, _ event: LinkEvent) -> EventCounterKey {
                EventCounterKey(linkId: link.id, day: today, platform: .android, event: event, variant: variant)
            }
            // One batch with the same total from two variants (the stores sum them before writing the total).
            try await store.addEventCounts([key("a", .click): 3, key("b", .click): 2, key(nil, .click): 1, key("a", .appInstall): 1])
            try await store.addEventCounts([key("b", .click): 5])
            let totals = try await store.eventCounts(linkId: link.id, fromDay: today)
            #expect(
                Set(totals) == [
                    EventCount(platform: .android, event: .click, count: 11), EventCount(platform: .android, event: .appInstall, count: 1),
                ])
            let variants = try await store.variantEventCounts(linkId: link.id, fromDay: today)
            #expect(
                Set(variants) == [
                    VariantEventCount(variant: "a", platform: .android, event: .appInstall, count: 1),
                    VariantEventCount(variant: "a", platform: .android, event: .click, count: 3),
                    VariantEventCount(variant: "b", platform: .android, event: .click, count: 7),
                ])
            // A kept click keeps its variant.
            var click = Self.click("variant-click")
            click.variant = "b"
            try await store.insertPendingClicks([click])
            let found = try await store.pendingClick(id: "variant-click")
            #expect(found?.variant == "b")
        }
    }

    // MARK: Deferred links

    static func click(
        _ id: String, at seconds: TimeInterval = 1_700_000_000, address: String? = "a1", network: String? = "n1", os: String? = "17.2",
        device: String? = "iPhone", platform: AppPlatform = .iOS, project: String = "pictlink", app: String = "jp.furyu.pictlink.ios"
    ) -> PendingClick {
        PendingClick(
            id: id, projectId: project, platform: platform, linkId: nil, appId: app, requestedLink: "https://go.pictlink.com/\(id)",
            createdAt: Date(timeIntervalSince1970: seconds),
            fingerprint: DeviceFingerprint(
                addressHash: address, networkHash: network, ipVersion: .v4, osVersion: os, device: device, languages: ["en", "ja"],
                screen: nil, timeZone: nil))
    }

    @Test(arguments: StoreKind.available) func pendingClicksRoundTripAndTakeBrowserSignals(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let click = Self.click("c1")
            try await store.insertPendingClicks([click, Self.click("c2", address: nil, network: nil, os: nil, device: nil)])
            // The same click written twice (a retried flush) is kept once.
            try await store.insertPendingClicks([click])
            #expect(try await store.pendingClick(id: "c1") == click)
            #expect(try await store.pendingClick(id: "c2")?.fingerprint.addressHash == nil)
            #expect(try await store.pendingClick(id: "nope") == nil)

            #expect(try await store.addBrowserSignals(clickId: "c1", screen: "390x844", timeZone: "Asia/Tokyo", languages: []))
            #expect(!(try await store.addBrowserSignals(clickId: "nope", screen: "1x1", timeZone: nil, languages: [])))
            let signalled = try #require(try await store.pendingClick(id: "c1"))
            #expect(signalled.fingerprint.screen == "390x844")
            #expect(signalled.fingerprint.timeZone == "Asia/Tokyo")
            #expect(signalled.fingerprint.languages == ["en", "ja"])
            _ = try await store.addBrowserSignals(clickId: "c1", screen: nil, timeZone: nil, languages: ["fr"])
            #expect(try await store.pendingClick(id: "c1")?.fingerprint.languages == ["fr"])
            #expect(try await store.pendingClick(id: "c1")?.fingerprint.screen == "390x844")
        }
    }

    @Test(arguments: StoreKind.available) func candidatesAndAddressActivity(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            try await store.insertPendingClicks([
                Self.click("same-address", at: now - 60),
                Self.click("same-network", at: now - 120, address: "a2"),
                Self.click("same-device", at: now - 180, address: "a3", network: "n3"),
                Self.click("stranger", at: now - 60, address: "a4", network: "n4", os: "16.0", device: "iPad"),
                Self.click("too-old", at: now - 90_000),
                Self.click("android", at: now - 60, platform: .android),
                Self.click("other-project", at: now - 60, project: "fieldnotes"),
                Self.click("other-app", at: now - 60, app: "jp.furyu.other"),
            ])
            let probe = Self.click("probe").fingerprint
            let since = Date(timeIntervalSince1970: now - 7200)
            // Only clicks of the claiming app that share the address or the network: never by OS and device alone.
            let candidates = try await store.candidateClicks(
                projectId: "pictlink", platform: .iOS, appId: "jp.furyu.pictlink.ios", since: since, until: .distantFuture, fingerprint: probe,
                bounds: .default)
            #expect(candidates.map(\.id) == ["same-address", "same-network"])
            #expect(
                try await store.candidateClicks(
                    projectId: "pictlink", platform: .iOS, appId: "jp.furyu.other", since: since, until: .distantFuture, fingerprint: probe,
                    bounds: .default
                ).map(\.id) == ["other-app"])
            var anywhere = probe
            (anywhere.addressHash, anywhere.networkHash) = (nil, nil)
            #expect(
                try await store.candidateClicks(
                    projectId: "pictlink", platform: .iOS, appId: "jp.furyu.pictlink.ios", since: since, until: .distantFuture, fingerprint: anywhere,
                    bounds: .default
                ).isEmpty)

            let activity = try await store.addressActivity(
                projectId: "pictlink", addressHash: "a1", since: Date(timeIntervalSince1970: now - 86_400), recentSince: since, platform: .iOS,
                fingerprint: probe, limit: 100)
            #expect(activity == AddressActivity(clicks: 3, similarClicks: 2, recentClicks: 3))
            let none = try await store.addressActivity(
                projectId: "pictlink", addressHash: "zz", since: Date(timeIntervalSince1970: now - 86_400), recentSince: since, platform: .iOS,
                fingerprint: probe, limit: 100)
            #expect(none == AddressActivity(clicks: 0, similarClicks: 0))

            // Claimed clicks are no longer candidates; weakly claimed ones still are (a better match may take them).
            #expect(
                try await store.claim(
                    clickId: "same-address", confidence: .default, projectId: "pictlink", installId: "i1", response: "{}",
                    at: Date(timeIntervalSince1970: now)) == .claimed)
            #expect(
                try await store.claim(
                    clickId: "same-network", confidence: .weak, projectId: "pictlink", installId: "i2", response: "{}",
                    at: Date(timeIntervalSince1970: now)) == .claimed)
            let after = try await store.candidateClicks(
                projectId: "pictlink", platform: .iOS, appId: "jp.furyu.pictlink.ios", since: since, until: .distantFuture, fingerprint: probe,
                bounds: .default)
            #expect(after.map(\.id) == ["same-network"])
            #expect(after.first?.isWeaklyClaimed == true)
            let claimed = try #require(try await store.pendingClick(id: "same-address"))
            #expect(claimed.claimedAt == Date(timeIntervalSince1970: now))
            #expect(claimed.confidence == .default)
            #expect(!claimed.isWeaklyClaimed)
        }
    }

    /// A crowded address costs a claim its bounds, not its crowd: each arm reads the most recent clicks of the
    /// address or the network (every platform, claimed or not), and only then keeps the claiming app's unclaimed ones;
    /// the activity count stops at its limit and says when the oldest counted click was made.
    @Test(arguments: StoreKind.available) func aCrowdedAddressIsReadOnlyToItsBounds(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            var clicks = (0..<20).map { Self.click("address-\($0)", at: now - 2000 + Double($0) * 10) }
            clicks += (0..<5).map { Self.click("android-\($0)", at: now - 1805 + Double($0), platform: .android) }
            clicks += (0..<10).map { Self.click("network-\($0)", at: now - 500 + Double($0), address: "a2") }
            // Dated after `until` (an instance whose clock runs ahead): they take no place within the bounds.
            clicks += (0..<10).map { Self.click("future-\($0)", at: now + 3600 + Double($0), address: "a3") }
            try await store.insertPendingClicks(clicks)
            let probe = Self.click("probe").fingerprint
            let since = Date(timeIntervalSince1970: now - 7200)
            let candidates = try await store.candidateClicks(
                projectId: "pictlink", platform: .iOS, appId: "jp.furyu.pictlink.ios", since: since, until: Date(timeIntervalSince1970: now),
                fingerprint: probe,
                bounds: CandidateBounds(perAddress: 8, perNetwork: 3))
            // The address's 8 latest are the 5 Android clicks and 3 iPhone ones; the network's 3 latest are from a2.
            #expect(candidates.map(\.id) == ["network-9", "network-8", "network-7", "address-19", "address-18", "address-17"])

            // The window's clicks here: those since 1,900 s before `now` (the 5 Android ones and address-10 on).
            let (day, recent) = (Date(timeIntervalSince1970: now - 86_400), Date(timeIntervalSince1970: now - 1900))
            let bounded = try await store.addressActivity(
                projectId: "pictlink", addressHash: "a1", since: day, recentSince: recent, platform: .iOS, fingerprint: probe, limit: 10)
            #expect(
                bounded == AddressActivity(clicks: 10, similarClicks: 5, recentClicks: 10, oldestCounted: Date(timeIntervalSince1970: now - 1850)))
            let whole = try await store.addressActivity(
                projectId: "pictlink", addressHash: "a1", since: day, recentSince: recent, platform: .iOS, fingerprint: probe, limit: 100)
            #expect(whole == AddressActivity(clicks: 25, similarClicks: 20, recentClicks: 15))
        }
    }

    @Test(arguments: StoreKind.available) func aLinksClicksAreListedNewestFirst(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now = 1_700_000_000.0
            var clicks = [Self.click("old", at: now - 60), Self.click("new", at: now - 10), Self.click("elsewhere", at: now)]
            clicks[0].linkId = 7
            clicks[1].linkId = 7
            clicks[2].linkId = 8
            try await store.insertPendingClicks(clicks + [Self.click("no-link", at: now)])
            #expect(
                try await store.claim(
                    clickId: "old", confidence: .weak, projectId: "pictlink", installId: "i1", response: "{}", at: Date(timeIntervalSince1970: now))
                    == .claimed)
            let listed = try await store.linkClicks(linkId: 7, limit: 10)
            #expect(listed.map(\.id) == ["new", "old"])
            #expect(listed.last?.confidence == .weak && listed.last?.claimedAt == Date(timeIntervalSince1970: now))
            #expect(listed.first?.claimedAt == nil)
            #expect(try await store.linkClicks(linkId: 7, limit: 1).map(\.id) == ["new"])
            #expect(try await store.linkClicks(linkId: 9, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreKind.available) func aClickIsClaimedOnceAndAnInstallAnsweredOnce(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            try await store.insertPendingClicks([Self.click("k1"), Self.click("k2")])
            #expect(
                try await store.claim(clickId: "k1", confidence: .unique, projectId: "pictlink", installId: "i1", response: "A", at: at) == .claimed)
            // The same install retrying gets its first answer, whatever it asks now.
            let again = try await store.claim(clickId: "k2", confidence: .unique, projectId: "pictlink", installId: "i1", response: "B", at: at)
            #expect(again == .answeredBefore(InstallClaim(projectId: "pictlink", installId: "i1", response: "A", createdAt: at)))
            // Another install cannot take the claimed click; nor can another project.
            #expect(
                try await store.claim(clickId: "k1", confidence: .unique, projectId: "pictlink", installId: "i2", response: "C", at: at)
                    == .clickTaken)
            #expect(
                try await store.claim(clickId: "k2", confidence: .unique, projectId: "fieldnotes", installId: "i3", response: "D", at: at)
                    == .clickTaken)
            // An install with no match is remembered too.
            #expect(
                try await store.claim(clickId: nil, confidence: nil, projectId: "pictlink", installId: "i4", response: "none", at: at) == .claimed)
            #expect(try await store.installClaim(projectId: "pictlink", installId: "i4")?.response == "none")
            #expect(try await store.installClaim(projectId: "fieldnotes", installId: "i4") == nil)
            #expect(try await store.installClaim(projectId: "pictlink", installId: "i2") == nil)
        }
    }

    /// A weak claim never deprives the click's owner: a DEFAULT or UNIQUE claim takes it back, another weak one cannot.
    @Test(arguments: StoreKind.available) func aWeakClaimYieldsToABetterOneOnly(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let at = Date(timeIntervalSince1970: 1_700_000_000)
            try await store.insertPendingClicks([Self.click("w1"), Self.click("w2")])
            #expect(
                try await store.claim(clickId: "w1", confidence: .weak, projectId: "pictlink", installId: "guess", response: "G", at: at) == .claimed)
            #expect(
                try await store.claim(clickId: "w1", confidence: .weak, projectId: "pictlink", installId: "guess-2", response: "H", at: at)
                    == .clickTaken)
            #expect(
                try await store.claim(clickId: "w1", confidence: .default, projectId: "pictlink", installId: "owner", response: "O", at: at)
                    == .takenBack)
            #expect(try await store.pendingClick(id: "w1")?.confidence == .default)
            #expect(
                try await store.claim(clickId: "w1", confidence: .unique, projectId: "pictlink", installId: "late", response: "L", at: at)
                    == .clickTaken)
            #expect(
                try await store.claim(clickId: "w2", confidence: .weak, projectId: "pictlink", installId: "guess-3", response: "G", at: at)
                    == .claimed)
            #expect(
                try await store.claim(clickId: "w2", confidence: .unique, projectId: "pictlink", installId: "token", response: "T", at: at)
                    == .takenBack)
            #expect(try await store.pendingClick(id: "w2")?.confidence == .unique)
        }
    }

    @Test(arguments: StoreKind.available) func settingsCanBeRemoved(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            _ = try await store.settingInsertingIfAbsent("old", value: "v")
            #expect(try await store.removeSetting("old"))
            #expect(try await store.setting("old") == nil)
            #expect(!(try await store.removeSetting("old")))
        }
    }

    /// 100 concurrent claims of one click by different installs (on PostgreSQL, through two connection pools as two
    /// instances have): exactly one wins.
    @Test(arguments: StoreKind.available) func aHundredConcurrentClaimsOfOneClickHaveOneWinner(_ kind: StoreKind) async throws {
        try await TestStore.withTwoInstances(kind) { store, other in
            try await store.insertPendingClicks([Self.click("hot")])
            let stores = [store, other]
            let outcomes = try await withThrowingTaskGroup(of: ClaimOutcome.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        try await stores[index % 2].claim(
                            clickId: "hot", confidence: .unique, projectId: "pictlink", installId: "install-\(index)", response: "\(index)",
                            at: Date())
                    }
                }
                return try await group.reduce(into: [ClaimOutcome]()) { $0.append($1) }
            }
            #expect(outcomes.count == 100)
            #expect(outcomes.filter { $0 == .claimed }.count == 1)
            #expect(outcomes.filter { $0 == .clickTaken }.count == 99)
            // The same install retrying concurrently gets one answer.
            try await store.insertPendingClicks([Self.click("retry")])
            let retries = try await withThrowingTaskGroup(of: ClaimOutcome.self) { group in
                for index in 0..<20 {
                    group.addTask {
                        try await stores[index % 2].claim(
                            clickId: "retry", confidence: .unique, projectId: "pictlink", installId: "one-install", response: "R", at: Date())
                    }
                }
                return try await group.reduce(into: [ClaimOutcome]()) { $0.append($1) }
            }
            #expect(retries.filter { $0 == .claimed }.count == 1)
            #expect(retries.filter { if case .answeredBefore(let claim) = $0 { claim.response == "R" } else { false } }.count == 19)
        }
    }

    @Test(arguments: StoreKind.available) func purgeRemovesOnlyExpiredDataOfTheProject(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            try await store.insertPendingClicks([
                Self.click("old", at: now - 100_000), Self.click("new", at: now - 10),
                Self.click("other-old", at: now - 100_000, project: "fieldnotes"),
            ])
            _ = try await store.claim(
                clickId: nil, confidence: nil, projectId: "pictlink", installId: "old-install", response: "x",
                at: Date(timeIntervalSince1970: now - 40 * 86_400))
            _ = try await store.claim(
                clickId: nil, confidence: nil, projectId: "pictlink", installId: "new-install", response: "x", at: Date(timeIntervalSince1970: now))
            #expect(try await store.projectsWithDeferredData() == ["pictlink", "fieldnotes"])
            let removed = try await store.purgeDeferredData(
                projectId: "pictlink", clicksBefore: Date(timeIntervalSince1970: now - 86_400),
                claimsBefore: Date(timeIntervalSince1970: now - 30 * 86_400), limit: 100)
            #expect(removed == 2)
            #expect(try await store.pendingClick(id: "old") == nil)
            #expect(try await store.pendingClick(id: "new") != nil)
            #expect(try await store.pendingClick(id: "other-old") != nil)
            #expect(try await store.installClaim(projectId: "pictlink", installId: "old-install") == nil)
            #expect(try await store.installClaim(projectId: "pictlink", installId: "new-install") != nil)
        }
    }

    /// A purge takes the writer in short turns: each call removes at most `limit` rows of each table, and calls
    /// repeated until one removes nothing leave none of what aged out.
    @Test(arguments: StoreKind.available) func purgeRemovesInBatches(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            try await store.insertPendingClicks((0..<25).map { Self.click("old-\($0)", at: now - 100_000) } + [Self.click("new", at: now)])
            for index in 0..<7 {
                _ = try await store.claim(
                    clickId: nil, confidence: nil, projectId: "pictlink", installId: "old-\(index)", response: "x",
                    at: Date(timeIntervalSince1970: now - 40 * 86_400))
            }
            func purge() async throws -> Int {
                try await store.purgeDeferredData(
                    projectId: "pictlink", clicksBefore: Date(timeIntervalSince1970: now - 86_400),
                    claimsBefore: Date(timeIntervalSince1970: now - 30 * 86_400), limit: 10)
            }
            var batches: [Int] = []
            while true {
                let removed = try await purge()
                batches.append(removed)
                if removed == 0 { break }
            }
            #expect(batches == [17, 10, 5, 0], "10 clicks and 7 claims, then 10 clicks, then 5")
            #expect(try await store.pendingClick(id: "new") != nil)
            #expect(try await store.pendingClick(id: "old-3") == nil)
        }
    }

    /// A project's pending clicks are counted up to the cap they are checked against, claimed or not, and only its own.
    @Test(arguments: StoreKind.available) func pendingClicksAreCountedUpToALimit(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            try await store.insertPendingClicks(
                (0..<12).map { Self.click("c-\($0)", at: now - Double($0)) } + [Self.click("other", at: now, project: "fieldnotes")])
            _ = try await store.claim(
                clickId: "c-0", confidence: .unique, projectId: "pictlink", installId: "i", response: "x", at: Date(timeIntervalSince1970: now))
            #expect(try await store.pendingClickCount(projectId: "pictlink", limit: 100) == 12)
            #expect(try await store.pendingClickCount(projectId: "pictlink", limit: 5) == 5)
            #expect(try await store.pendingClickCount(projectId: "fieldnotes", limit: 100) == 1)
            #expect(try await store.pendingClickCount(projectId: "nobody", limit: 100) == 0)
        }
    }

    /// Runs `sql` (no parameters) on either store and returns its first row's column `n` as an integer.
    /// Runs `sql` as an operator would by hand.
    static func execute(_ sql: String, in store: any RelinkStore) async throws {
        if let sqlite = store as? SQLiteStore {
            try await sqlite.writer.write { db in try db.execute(sql: sql) }
        } else {
            _ = try await #require(store as? PostgresStore).rows(PostgresQuery(unsafeSQL: sql))
        }
    }

    static func integer(_ sql: String, in store: any RelinkStore) async throws -> Int64 {
        if let sqlite = store as? SQLiteStore {
            return try await sqlite.writer.write { db in try Row.fetchOne(db, sql: sql)?["n"] ?? 0 }
        }
        let postgres = try #require(store as? PostgresStore)
        return try await postgres.rows(PostgresQuery(unsafeSQL: sql)).first.map { try $0.value("n", as: Int64.self) } ?? 0
    }

    /// A burst of clicks on one long link keeps its text once; each click's row holds its digest, and reads give the
    /// whole link back. The purge drops a link not clicked for the token window and an hour.
    @Test(arguments: StoreKind.available) func aLongLinkIsKeptOnceForAllItsClicks(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let now: TimeInterval = 1_700_000_000
            let long = "https://go.pictlink.com/?link=https://pictlink.com/" + String(repeating: "x", count: 7_000) + "&apn=a"
            var clicks = (0..<500).map { index in
                var click = Self.click("long-\(index)", at: now - Double(index))
                click.requestedLink = long
                return click
            }
            var other = Self.click("other", at: now - 100_000)
            other.requestedLink = long + "&utm_source=b"
            clicks.append(other)
            try await store.insertPendingClicks(Array(clicks[0..<250]))
            try await store.insertPendingClicks(Array(clicks[250...]))
            #expect(try await Self.integer("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM clicked_links", in: store) == 2)
            // The clicks' rows hold no link text: the digest only.
            #expect(
                try await Self.integer("SELECT CAST(COALESCE(MAX(LENGTH(requested_link)), 0) AS BIGINT) AS n FROM pending_clicks", in: store) == 0)
            #expect(try await Self.integer("SELECT CAST(MAX(LENGTH(link_digest)) AS BIGINT) AS n FROM pending_clicks", in: store) == 32)
            #expect(try await store.pendingClick(id: "long-7")?.requestedLink == long)
            #expect(try await store.pendingClick(id: "other")?.requestedLink == long + "&utm_source=b")
            let candidates = try await store.candidateClicks(
                projectId: "pictlink", platform: .iOS, appId: "jp.furyu.pictlink.ios", since: Date(timeIntervalSince1970: now - 50),
                until: .distantFuture, fingerprint: clicks[0].fingerprint, bounds: CandidateBounds(perAddress: 10, perNetwork: 10))
            #expect(candidates.count == 10 && candidates.allSatisfy { $0.requestedLink == long })
            // A short link stays in its row.
            try await store.insertPendingClicks([Self.click("short")])
            #expect(try await store.pendingClick(id: "short")?.requestedLink == "https://go.pictlink.com/short")

            // Purged: "other" has expired, and so has its link, last clicked when it was (the clicks here are dated in
            // the past; a link's last click is stamped when it is written).
            let backdate = """
                UPDATE clicked_links SET last_clicked_at = CASE WHEN link LIKE '%utm_source=b' THEN \(now - 100_000) ELSE \(now) END
                """
            if let sqlite = store as? SQLiteStore {
                try await sqlite.writer.write { db in try db.execute(sql: backdate) }
            } else {
                try await #require(store as? PostgresStore).execute(backdate)
            }
            _ = try await store.purgeDeferredData(
                projectId: "pictlink", clicksBefore: Date(timeIntervalSince1970: now - 50_000), claimsBefore: Date(timeIntervalSince1970: 0),
                limit: 100)
            #expect(try await Self.integer("SELECT CAST(COUNT(*) AS BIGINT) AS n FROM clicked_links", in: store) == 1)
            #expect(try await store.pendingClick(id: "long-0")?.requestedLink == long)
        }
    }

    @Test(arguments: StoreKind.available) func settingsKeepTheFirstValue(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            #expect(try await store.setting("secret") == nil)
            let values = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<20 { group.addTask { try await store.settingInsertingIfAbsent("secret", value: "v\(index)") } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(values.count == 1)
            #expect(try await store.setting("secret") == values.first)
        }
    }

    // MARK: Several instances

    /// Two instances (two pools on PostgreSQL) minting the same request concurrently: one link, both get it.
    @Test(arguments: StoreKind.available) func idempotentMintingHoldsAcrossInstances(_ kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let other = try await test.secondInstance()
        defer { (other as? PostgresStore)?.close() }
        let stores = [test.store, other]
        let results = await withTaskGroup(of: Result<ShortLinkRecord, any Error>.self) { group in
            for index in 0..<40 {
                group.addTask {
                    do {
                        return .success(try await stores[index % 2].insertLink(Self.draft("code\(index)", key: "same-request")))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return await group.reduce(into: [Result<ShortLinkRecord, any Error>]()) { $0.append($1) }
        }
        let inserted = results.compactMap { try? $0.get() }
        #expect(inserted.count == 1)
        let failures = results.compactMap { if case .failure(let error) = $0 { error as? StoreError } else { nil } }
        #expect(failures.count == 39)
        #expect(failures.allSatisfy { $0 == .idempotencyKeyTaken })
        #expect(try await other.link(idempotencyKey: "same-request") == inserted.first)
        await test.close()
    }

    /// Counters written by two instances at once, over and over: nothing is lost (upserts, no deadlock).
    @Test(arguments: StoreKind.available) func eventCountersFromTwoInstancesAddUp(_ kind: StoreKind) async throws {
        let test = try await TestStore.make(kind)
        let other = try await test.secondInstance()
        defer { (other as? PostgresStore)?.close() }
        let links = try await (0..<5).asyncMap { try await test.store.insertLink(Self.draft("ev\($0)")).id }
        let day = EventCounterKey.day(of: Date())
        let stores = [test.store, other]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for batch in 0..<40 {
                group.addTask {
                    var counts: [EventCounterKey: Int64] = [:]
                    for link in links {
                        for platform in [StatsPlatform.ios, .android, .desktop] {
                            counts[EventCounterKey(linkId: link, day: day, platform: platform, event: .click)] = 1
                        }
                    }
                    try await stores[batch % 2].addEventCounts(counts)
                }
            }
            try await group.waitForAll()
        }
        for link in links {
            let counts = try await other.eventCounts(linkId: link, fromDay: day)
            #expect(counts.count == 3)
            #expect(counts.allSatisfy { $0.count == 40 })
        }
        await test.close()
    }

    /// Every parameter set, with values that break naive decoders: a link read by code (SQLite decodes the stored
    /// JSON itself there) equals the one inserted and the one listed.
    @Test(arguments: StoreKind.available) func linksKeepEveryParameterExactly(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let hostile = [
                "\"quoted\" \\ back\\slash", "日本語 😀👍🏽 e\u{301}", "tab\tnew\nline\r\u{1}\u{1F}", "NUL\u{0}inside\u{0}", "<script>&amp;</script>",
                "{\"json\":[1]}",
                String(repeating: "é", count: 3_000),
            ]
            var parameters = LinkParameters()
            for (position, parameter) in LinkParameter.allCases.enumerated() {
                parameters[parameter] = hostile[position % hostile.count] + "\(position)"
            }
            var draft = Self.draft("every")
            draft.parameters = parameters
            let inserted = try await store.insertLink(draft)
            var none = Self.draft("none")
            none.parameters = LinkParameters()
            let empty = try await store.insertLink(none)
            let read = try #require(try await store.link(domain: "https://go.pictlink.com", code: "every"))
            #expect(read == inserted)
            #expect(read.parameters == parameters)
            #expect(try await store.links(projectId: "pictlink", beforeId: nil, limit: 10).contains(read))
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "none") == empty)
        }
    }

    /// Many lookups at once (PostgreSQL sends them many to a query): each answer is the one a lookup alone gets, for
    /// codes that differ only in case or in how a character is spelt, unknown codes and domains, and a NUL.
    @Test(arguments: StoreKind.available) func linksLookedUpAtOnceAnswerEachAsAlone(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let domain = "https://go.pictlink.com"
            // Kept by their bytes: Swift's `==` would make the two spellings of "café" one key.
            var records: [(code: String, record: ShortLinkRecord)] = []
            for code in ["ab", "AB", "aB", "caf\u{E9}", "cafe\u{301}", "x-_1"] + (0..<40).map({ "code\($0)" }) {
                records.append((code, try await store.insertLink(Self.draft(code, link: "https://pictlink.com/\(records.count)"))))
            }
            let asked = records.map(\.code) + ["Ab", "ba", "cafe", "caf\u{C9}", "code40", "nul\u{0}", "\u{0}"]
            let lookups = (0..<400).map { index in (index % 7 == 0 ? domain + "/" : domain, asked[index % asked.count]) }
            let answers = try await withThrowingTaskGroup(of: (Int, ShortLinkRecord?).self) { group in
                for (index, (domain, code)) in lookups.enumerated() {
                    group.addTask { (index, try await store.link(domain: domain, code: code)) }
                }
                return try await group.reduce(into: [Int: ShortLinkRecord?]()) { $0[$1.0] = $1.1 }
            }
            for (index, (lookupDomain, code)) in lookups.enumerated() {
                let expected = lookupDomain == domain ? records.first(where: { Array($0.code.utf8) == Array(code.utf8) })?.record : nil
                #expect(answers[index] == .some(expected), "\(lookupDomain) \(code.debugDescription)")
            }
        }
    }
}

extension Sequence {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
