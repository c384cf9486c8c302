import Foundation
import GRDB
import RelinkCore
import Testing

@testable import RelinkStore

@Suite("SQLite store")
struct SQLiteStoreTests {
    static func draft(_ code: String, key: String? = nil, link: String = "https://pictlink.com/a") -> ShortLinkDraft {
        var parameters = LinkParameters()
        parameters.link = link
        return ShortLinkDraft(
            projectId: "pictlink", domain: "https://pictlink.page.link", code: code, longLink: "https://pictlink.page.link/?link=\(link)",
            parameters: parameters, suffixOption: .short, idempotencyKey: key, createdAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    @Test func insertsAndFindsLinks() async throws {
        let store = try SQLiteStore()
        let record = try await store.insertLink(Self.draft("Ab3x", key: "k1"))
        #expect(record.id > 0)
        #expect(record.shortLink == "https://pictlink.page.link/Ab3x")
        #expect(try await store.link(domain: "https://pictlink.page.link", code: "Ab3x") == record)
        #expect(try await store.link(domain: "https://pictlink.page.link", code: "ab3x") == nil)
        #expect(try await store.link(idempotencyKey: "k1") == record)
        #expect(try await store.link(domain: "https://other.example", code: "Ab3x") == nil)
    }

    @Test func aCodeIsTakenOncePerDomain() async throws {
        let store = try SQLiteStore()
        _ = try await store.insertLink(Self.draft("Ab3x"))
        await #expect(throws: StoreError.codeTaken(domain: "https://pictlink.page.link", code: "Ab3x")) {
            try await store.insertLink(Self.draft("Ab3x"))
        }
        var other = Self.draft("Ab3x")
        other.domain = "https://pictlink.com/links"
        _ = try await store.insertLink(other)
    }

    @Test func anIdempotencyKeyIsTakenOnce() async throws {
        let store = try SQLiteStore()
        _ = try await store.insertLink(Self.draft("a1", key: "same"))
        await #expect(throws: StoreError.idempotencyKeyTaken) { try await store.insertLink(Self.draft("a2", key: "same")) }
        // Links without a key (custom suffixes) never collide on it.
        _ = try await store.insertLink(Self.draft("c1"))
        _ = try await store.insertLink(Self.draft("c2"))
    }

    @Test func concurrentInsertsOfOneCodeLeaveOneWinner() async throws {
        let store = try SQLiteStore()
        let results = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<50 {
                group.addTask { (try? await store.insertLink(Self.draft("same", link: "https://pictlink.com/\(index)"))) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { $0 }.count == 1)
    }

    @Test func updatesAndPages() async throws {
        let store = try SQLiteStore()
        var ids: [Int64] = []
        for index in 0..<5 { ids.append(try await store.insertLink(Self.draft("c\(index)")).id) }
        let first = try await store.links(projectId: "pictlink", beforeId: nil, limit: 2)
        #expect(first.map(\.id) == [ids[4], ids[3]])
        let second = try await store.links(projectId: "pictlink", beforeId: first.last!.id, limit: 10)
        #expect(second.map(\.id) == [ids[2], ids[1], ids[0]])
        #expect(try await store.links(projectId: "other", beforeId: nil, limit: 10).isEmpty)

        var link = try #require(try await store.link(domain: "https://pictlink.page.link", code: "c0"))
        link.disabled = true
        link.expiresAt = Date(timeIntervalSince1970: 1_900_000_000)
        link.parameters.ofl = "https://pictlink.com/desk"
        let saved = try await store.updateLink(link)
        #expect(saved.updatedAt > link.createdAt)
        let reread = try #require(try await store.link(domain: "https://pictlink.page.link", code: "c0"))
        #expect(reread.disabled)
        #expect(reread.expiresAt == Date(timeIntervalSince1970: 1_900_000_000))
        #expect(reread.parameters.ofl == "https://pictlink.com/desk")
        #expect(!reread.isActive(at: Date(timeIntervalSince1970: 1_800_000_000)))
        #expect(reread == saved)
        link.id = 999
        await #expect(throws: StoreError.notFound) { try await store.updateLink(link) }
    }

    @Test func apiKeys() async throws {
        let store = try SQLiteStore()
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

    @Test func eventCountersAddUp() async throws {
        let store = try SQLiteStore()
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

    @Test func aFileKeepsEverythingAcrossOpens() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-store-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        do {
            let store = try SQLiteStore(path: path)
            _ = try await store.insertLink(Self.draft("keep"))
            _ = try await store.insertAPIKey(projectId: "pictlink", name: nil, keyHash: "h", keyPrefix: "rl_x")
        }
        let reopened = try SQLiteStore(path: path)
        #expect(try await reopened.link(domain: "https://pictlink.page.link", code: "keep") != nil)
        #expect(try await reopened.apiKey(hash: "h") != nil)
    }

    @Test func refusesASchemaNewerThanItKnows() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-future-\(UUID()).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let store = try SQLiteStore(path: path)
        try await store.writer.write { try $0.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('99-from-the-future')") }
        #expect(throws: StoreError.self) { try SQLiteStore(path: path) }
    }
}
