import Foundation
import RelinkCore
import Testing

@testable import RelinkStore

/// What the console reads and keeps, the same in both stores: link search, statistics by day, installs per
/// confidence, recent clicks per link, console-only keys and console sessions.
@Suite("Console store conformance")
struct ConsoleStoreConformanceTests {
    @Test(arguments: StoreKind.available) func searchFindsCodesDestinationsAndNamesIgnoringASCIICase(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let spring = try await store.insertLink(StoreConformanceTests.draft("Spring", link: "https://pictlink.com/sale"))
            let percent = try await store.insertLink(StoreConformanceTests.draft("off", link: "https://pictlink.com/50%25_off"))
            var named = StoreConformanceTests.draft("named", link: "https://pictlink.com/n")
            named.name = "Été campaign"
            let name = try await store.importLinks([named])
            #expect(name.isEmpty)
            func codes(_ text: String?) async throws -> [String] {
                try await store.links(projectId: "pictlink", matching: text, beforeId: nil, limit: 10).map(\.code)
            }
            #expect(try await codes("spring") == ["Spring"])
            #expect(try await codes("SALE") == ["Spring"])
            // LIKE's own characters match themselves only.
            #expect(try await codes("%25_") == ["off"])
            #expect(try await codes("_") == ["off"])
            #expect(try await codes("%") == ["off"])
            #expect(try await codes("Été") == ["named"])
            #expect(try await codes("   ").count == 3)
            #expect(try await codes(nil).count == 3)
            #expect(try await codes("nothing like it").isEmpty)
            // A NUL would end SQLite's pattern early and match everything.
            #expect(try await codes("\u{0}").isEmpty)
            #expect(try await codes("sale\u{0}").isEmpty)
            // Paging goes on within the search; another project's links never show.
            #expect(try await store.links(projectId: "pictlink", matching: "pictlink", beforeId: percent.id, limit: 10).map(\.id) == [spring.id])
            #expect(try await store.links(projectId: "fieldnotes", matching: "sale", beforeId: nil, limit: 10).isEmpty)
        }
    }

    /// Long links keep their values percent-encoded (`www%2Epictlink%2Ejp%2Fcampaign`); a destination is found by
    /// any part of it as people write it, and by the stored text as before.
    @Test(arguments: StoreKind.available) func searchFindsADestinationAsWritten(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            var winter = StoreConformanceTests.draft("w1")
            winter.parameters.link = "https://www.pictlink.jp/campaign/winter sale"
            winter.longLink = "https://go.pictlink.com/?" + LinkQuery.encode(winter.parameters)
            _ = try await store.insertLink(winter)
            _ = try await store.insertLink(StoreConformanceTests.draft("other", link: "https://pictlink.com/summer"))
            func codes(_ text: String) async throws -> [String] {
                try await store.links(projectId: "pictlink", matching: text, beforeId: nil, limit: 10).map(\.code)
            }
            for text in ["www.pictlink.jp", "pictlink.jp/campaign", "https://www.pictlink.jp/", "WINTER SALE", "jp%2Fcampaign", "w1"] {
                #expect(try await codes(text) == ["w1"], "\(text)")
            }
            #expect(try await codes("pictlink.com/summer") == ["other"])
            #expect(try await codes("winter%sale").isEmpty)
        }
    }

    @Test(arguments: StoreKind.available) func dailyCountsConfidencesAndRecentClicks(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let a = try await store.insertLink(StoreConformanceTests.draft("a"))
            let b = try await store.insertLink(StoreConformanceTests.draft("b"))
            var other = StoreConformanceTests.draft("c")
            other.projectId = "fieldnotes"
            other.domain = "https://go.fieldnotes.app"
            let c = try await store.insertLink(other)
            let counts: [EventCounterKey: Int64] = [
                EventCounterKey(linkId: a.id, day: 100, platform: .ios, event: .click): 3,
                EventCounterKey(linkId: a.id, day: 101, platform: .ios, event: .click): 1,
                EventCounterKey(linkId: a.id, day: 101, platform: .crawler, event: .click): 7,
                EventCounterKey(linkId: a.id, day: 101, platform: .ios, event: .appInstall, confidence: .unique): 2,
                EventCounterKey(linkId: a.id, day: 101, platform: .ios, event: .appInstall, confidence: .weak): 1,
                EventCounterKey(linkId: a.id, day: 101, platform: .ios, event: .appFirstOpen, confidence: .unique): 2,
                EventCounterKey(linkId: b.id, day: 101, platform: .android, event: .click): 5,
                EventCounterKey(linkId: b.id, day: 99, platform: .android, event: .appInstall, confidence: .default): 4,
                EventCounterKey(linkId: c.id, day: 101, platform: .desktop, event: .click): 9,
            ]
            try await store.addEventCounts(counts)
            // Installs are counted once in the totals, whatever their confidence.
            #expect(
                try await store.dailyEventCounts(.link(id: a.id), fromDay: 100, toDay: 101) == [
                    DailyEventCount(day: 100, platform: .ios, event: .click, count: 3),
                    DailyEventCount(day: 101, platform: .crawler, event: .click, count: 7),
                    DailyEventCount(day: 101, platform: .ios, event: .appFirstOpen, count: 2),
                    DailyEventCount(day: 101, platform: .ios, event: .appInstall, count: 3),
                    DailyEventCount(day: 101, platform: .ios, event: .click, count: 1),
                ])
            #expect(try await store.dailyEventCounts(.link(id: a.id), fromDay: 101, toDay: 101).count == 4)
            let project = try await store.dailyEventCounts(.project(id: "pictlink"), fromDay: 99, toDay: 101)
            let projectTotal = project.reduce(Int64(0)) { $0 + $1.count }
            #expect(projectTotal == 25)  // 3 + 1 + 7 + 3 + 2 + 5 + 4
            #expect(!project.contains { $0.platform == .desktop })
            #expect(
                try await store.confidenceCounts(.link(id: a.id), fromDay: 0, toDay: 200) == [
                    ConfidenceCount(day: 101, confidence: .unique, count: 2), ConfidenceCount(day: 101, confidence: .weak, count: 1),
                ])
            #expect(
                try await store.confidenceCounts(.project(id: "pictlink"), fromDay: 99, toDay: 99) == [
                    ConfidenceCount(day: 99, confidence: .default, count: 4)
                ])
            #expect(try await store.confidenceCounts(.project(id: "fieldnotes"), fromDay: 0, toDay: 200).isEmpty)
            // Human clicks only, from the day given.
            let recent: [Int64: Int64] = [a.id: 1, b.id: 5, c.id: 9]
            #expect(try await store.clickCounts(linkIds: [a.id, b.id, c.id], fromDay: 101) == recent)
            let ever: [Int64: Int64] = [a.id: 4]
            #expect(try await store.clickCounts(linkIds: [a.id], fromDay: 0) == ever)
            #expect(try await store.clickCounts(linkIds: [], fromDay: 0).isEmpty)
        }
    }

    @Test(arguments: StoreKind.available) func consoleKeysAndSessions(_ kind: StoreKind) async throws {
        try await TestStore.with(kind) { store in
            let api = try await store.insertAPIKey(projectId: "pictlink", name: nil, keyHash: "h1", keyPrefix: "rl_a")
            let console = try await store.insertAPIKey(projectId: "pictlink", name: "c", keyHash: "h2", keyPrefix: "rlc_a", scope: .console)
            #expect(api.scope == .api && console.scope == .console)
            #expect(try await store.apiKey(hash: "h2") == console)
            let now = Date()
            let later = now.addingTimeInterval(3600)
            for index in 0..<4 {
                try await store.saveConsoleSession(
                    ConsoleSessionRecord(idHash: "s\(index)", keyId: console.id, data: "{\"n\":\(index)}", expiresAt: later), maximumPerKey: 3)
                try await Task.sleep(for: .milliseconds(5))
            }
            // At most three a key: the oldest went.
            #expect(try await store.consoleSession(idHash: "s0", now: now) == nil)
            #expect(try await store.consoleSession(idHash: "s3", now: now)?.data == "{\"n\":3}")
            // Saving again replaces the data, not the session.
            try await store.saveConsoleSession(
                ConsoleSessionRecord(idHash: "s3", keyId: console.id, data: "{}", expiresAt: later), maximumPerKey: 3)
            #expect(try await store.consoleSession(idHash: "s1", now: now) != nil)
            #expect(try await store.consoleSession(idHash: "s3", now: now)?.data == "{}")
            // Expired sessions are not found.
            #expect(try await store.consoleSession(idHash: "s3", now: later.addingTimeInterval(1)) == nil)
            try await store.removeConsoleSession(idHash: "s1")
            #expect(try await store.consoleSession(idHash: "s1", now: now) == nil)
            try await store.saveConsoleSession(
                ConsoleSessionRecord(idHash: "api", keyId: api.id, data: "{}", expiresAt: later), maximumPerKey: 3)
            // Revoking a key ends its sessions, and only its.
            _ = try await store.revokeAPIKey(id: console.id)
            #expect(try await store.consoleSession(idHash: "s2", now: now) == nil)
            #expect(try await store.consoleSession(idHash: "api", now: now) != nil)
        }
    }
}
