import Foundation
import RelinkCore
import Testing

@testable import RelinkStore

extension OldRows {
    /// Reads every row back through the store's public API, as the server would, and compares it with what was
    /// written: links by domain and code (and idempotency key, and listed per project), keys by hash, counters in
    /// the statistics, clicks, claims, settings, webhooks and their deliveries, console sessions.
    func expectReadable(in store: any RelinkStore) async throws {
        var linkIds: [String: Int64] = [:]
        for (code, expected) in links {
            let found = try #require(try await store.link(domain: expected.domain, code: code), "the link \(code) is gone")
            var record = expected
            record.id = found.id
            #expect(found == record)
            linkIds[code] = found.id
            if let key = expected.idempotencyKey { #expect(try await store.link(idempotencyKey: key) == found) }
        }
        for project in Set(links.values.map(\.projectId)) {
            let listed = try await store.links(projectId: project, matching: nil, beforeId: nil, limit: 100)
            #expect(Set(listed.map(\.code)) == Set(links.values.filter { $0.projectId == project }.map(\.code)))
        }
        #expect(try await store.countLinksWithCountryRules() == links.values.filter { $0.rules?.usesCountries == true }.count)

        var keyIds: [String: Int64] = [:]
        for (hash, expected) in apiKeys {
            let found = try #require(try await store.apiKey(hash: hash), "the key \(hash) is gone")
            var record = expected
            record.id = found.id
            #expect(found == record)
            keyIds[hash] = found.id
        }
        #expect(try await store.apiKeys(projectId: nil).count == apiKeys.count)

        try await expectCounters(in: store, linkIds: linkIds)
        try await expectDeferredRows(in: store, linkIds: linkIds)

        let hooks = try await store.webhooks(projectId: nil)
        #expect(hooks.count == webhooks.count)
        for (url, expected) in webhooks {
            let found = try #require(hooks.first { $0.url == url }, "the webhook \(url) is gone")
            var record = expected
            record.id = found.id
            #expect(found == record)
            let sent = (deliveries[url] ?? []).map { delivery in
                var delivery = delivery
                delivery.webhookId = found.id
                return delivery
            }
            #expect(try await store.deliveries(webhookId: found.id, limit: 100) == sent)
        }

        for (session, keyHash) in sessions {
            var record = session
            record.keyId = try #require(keyIds[keyHash])
            #expect(try await store.consoleSession(idHash: session.idHash, now: Date()) == record)
        }
    }

    /// Each link's counters by day, summed by platform and event, its human clicks, its variants' and its
    /// installs' confidences, and each project's totals by day.
    private func expectCounters(in store: any RelinkStore, linkIds: [String: Int64]) async throws {
        let lastDay = 100_000
        for (code, id) in linkIds {
            let daily = dailyCounts[code] ?? []
            #expect(Set(try await store.dailyEventCounts(.link(id: id), fromDay: 0, toDay: lastDay)) == daily)
            let totals = Dictionary(grouping: daily) { [$0.platform.rawValue, $0.event.rawValue] }.values.map { days in
                EventCount(platform: days[0].platform, event: days[0].event, count: days.map(\.count).reduce(0, +))
            }
            #expect(Set(try await store.eventCounts(linkId: id, fromDay: 0)) == Set(totals))
            let humanClicks = daily.filter { $0.event == .click && $0.platform != .crawler }.map(\.count).reduce(0, +)
            #expect(try await store.clickCount(linkId: id) == humanClicks)
            #expect(Set(try await store.variantEventCounts(linkId: id, fromDay: 0)) == variantCounts[code] ?? [])
            #expect(Set(try await store.confidenceCounts(.link(id: id), fromDay: 0, toDay: lastDay)) == confidenceCounts[code] ?? [])
        }
        for project in Set(links.values.map(\.projectId)) {
            let days = dailyCounts.filter { links[$0.key]?.projectId == project }.values.flatMap { $0 }
            let perDay = Dictionary(grouping: days) { [String($0.day), $0.platform.rawValue, $0.event.rawValue] }.values.map { same in
                DailyEventCount(day: same[0].day, platform: same[0].platform, event: same[0].event, count: same.map(\.count).reduce(0, +))
            }
            #expect(Set(try await store.dailyEventCounts(.project(id: project), fromDay: 0, toDay: lastDay)) == Set(perDay))
        }
    }

    /// Pending clicks (by id, per link, and as candidates of a claim from their app), install claims, settings and
    /// shadow matches.
    private func expectDeferredRows(in store: any RelinkStore, linkIds: [String: Int64]) async throws {
        for (id, expected) in clicks {
            var click = expected
            click.linkId = clickedCodes[id].flatMap { linkIds[$0] }
            #expect(try await store.pendingClick(id: id) == click)
            if let appId = click.appId, click.claimedAt == nil || click.isWeaklyClaimed {
                let candidates = try await store.candidateClicks(
                    projectId: click.projectId, platform: click.platform, appId: appId, since: click.createdAt, until: click.createdAt,
                    fingerprint: click.fingerprint, bounds: .default)
                #expect(candidates.map(\.id) == [id])
            }
        }
        for (code, linkId) in linkIds {
            let kept = try await store.linkClicks(linkId: linkId, limit: 100)
            #expect(Set(kept.map(\.id)) == Set(clickedCodes.filter { $0.value == code }.keys))
        }
        for claim in installClaims {
            #expect(try await store.installClaim(projectId: claim.projectId, installId: claim.installId) == claim)
        }
        for (key, value) in settings { #expect(try await store.setting(key) == value) }
        #expect(Set(try await store.shadowMatches(projectId: Self.project, fromDay: 0)) == shadowMatches)
    }

    /// What the server goes on to do with the old rows: claims take the clicks still open (and no other), installs
    /// answered before get their answer again, due deliveries are leased, and new links get ids of their own.
    func expectUsable(_ store: any RelinkStore) async throws {
        for (id, click) in clicks {
            let outcome = try await store.claim(
                clickId: id, confidence: .unique, projectId: click.projectId, installId: "after-upgrade-\(id)", response: "{}", at: Date())
            #expect(outcome == (click.claimedAt == nil ? .claimed : click.isWeaklyClaimed ? .takenBack : .clickTaken), "claiming \(id)")
        }
        for claim in installClaims {
            let outcome = try await store.claim(
                clickId: nil, confidence: nil, projectId: claim.projectId, installId: claim.installId, response: "{}", at: Date())
            #expect(outcome == .answeredBefore(claim))
        }
        let due = deliveries.values.flatMap { $0 }.filter { $0.status == .pending }
        let leased = try await store.leaseDeliveries(now: Date(timeIntervalSince1970: 1_700_001_000), limit: 100, lease: .seconds(60))
        #expect(Set(leased.map(\.0.id)) == Set(due.map(\.id)))

        var draft = StoreConformanceTests.draft("after-upgrade")
        draft.idempotencyKey = "after-upgrade"
        let minted = try await store.insertLink(draft)
        #expect(try await store.link(domain: draft.domain, code: draft.code) == minted)
        for (code, old) in links {
            #expect(try await store.link(domain: old.domain, code: code)?.id != minted.id)
        }
    }
}
