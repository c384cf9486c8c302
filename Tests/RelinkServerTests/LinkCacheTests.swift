import Foundation
import NIOConcurrencyHelpers
import PropertyBased
import Testing

@testable import RelinkCore
@testable import RelinkServer
@testable import RelinkStore

@Suite("Link cache: compact links and the hot level")
struct LinkCacheTests {
    static let project = TestSupport.configuration.project(id: "pictlink")!
    static let prefix = try! DomainURIPrefix("https://go.pictlink.com")

    static let alphabet: [Character] = Array("abcXYZ019-._~:/?#&=% \t\"<>\\éüß日本語😀👍🏽\u{200B}\u{0}")

    static func text(_ rng: inout some RandomNumberGenerator, length: ClosedRange<Int>) -> String {
        String((0..<Int.random(in: length, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
    }

    /// Records with every field set or not, values long enough to need two and three bytes of length, and the
    /// oddities a hand-edited row may hold.
    static let records = Generator<ShortLinkRecord, Shrink.None<ShortLinkRecord>> { rng in
        var parameters = LinkParameters()
        for parameter in LinkParameter.allCases where Int.random(in: 0..<4, using: &rng) == 0 {
            let length: ClosedRange<Int> = [1...20, 1...20, 100...200, 16_384...16_400].randomElement(using: &rng)!
            parameters[parameter] = text(&rng, length: length)
        }
        let canonical = LongLink(prefix: prefix, parameters: parameters).url
        let hex = (0..<64).map { _ in "0123456789abcdef".randomElement(using: &rng)! }
        let idempotencyKey: String? = [nil, String(hex), String(hex).uppercased(), "not-a-digest", String(hex.dropLast())].randomElement(using: &rng)!
        let dates: [Date?] = [nil, Date(timeIntervalSince1970: 1_795_518_849.65564), Date(timeIntervalSinceReferenceDate: .nan), Date.distantFuture]
        return ShortLinkRecord(
            id: Int64.random(in: 1...Int64.max, using: &rng), projectId: Bool.random(using: &rng) ? "pictlink" : "fieldnotes",
            domain: prefix.description, code: text(&rng, length: 1...20), longLink: Bool.random(using: &rng) ? canonical : canonical + "&x",
            parameters: parameters, suffixOption: SuffixOption.allCases.randomElement(using: &rng)!, idempotencyKey: idempotencyKey,
            disabled: Bool.random(using: &rng), expiresAt: dates.randomElement(using: &rng)!,
            createdAt: Date(timeIntervalSince1970: Double.random(in: 0...2e9, using: &rng)),
            updatedAt: Date(timeIntervalSinceReferenceDate: Double.random(in: -1e9...1e9, using: &rng)), archived: Bool.random(using: &rng),
            name: Bool.random(using: &rng) ? text(&rng, length: 0...30) : nil, fetchPreview: Bool.random(using: &rng),
            preview: Bool.random(using: &rng) ? PagePreview(title: "Spring", fetchedAt: Date(timeIntervalSince1970: 1_700_000_000)) : nil,
            rules: Bool.random(using: &rng) ? LinkRules(variants: [LinkVariant(name: "a", weight: 1)]) : nil,
            maxClicks: [nil, 1, 1_000_000, Int.min, Int.max].randomElement(using: &rng)!,
            expiredLink: Bool.random(using: &rng) ? "https://pictlink.com/over" : nil)
    }

    @Test func aCompactLinkGivesBackItsRecord() async {
        await propertyCheck(count: 200, input: Self.records) { record in
            let compact = CompactShortLink.make(record: record, project: Self.project, prefix: Self.prefix)
            let back = compact.record(prefix: Self.prefix)
            // Compared with the expiry apart, by its bits: a NaN one (a hand-edited row) is not equal to itself.
            #expect(back.expiresAt?.timeIntervalSinceReferenceDate.bitPattern == record.expiresAt?.timeIntervalSinceReferenceDate.bitPattern)
            var withoutExpiry = (back, record)
            withoutExpiry.0.expiresAt = nil
            withoutExpiry.1.expiresAt = nil
            #expect(withoutExpiry.0 == withoutExpiry.1)
            #expect(back.isActive(at: Date()) == record.isActive(at: Date()))
        }
    }

    /// A store that counts its reads.
    final class CountingLoader: Sendable {
        let records: NIOLockedValueBox<[String: ShortLinkRecord]>
        let reads = NIOLockedValueBox(0)

        init(_ records: [ShortLinkRecord]) {
            self.records = NIOLockedValueBox(Dictionary(uniqueKeysWithValues: records.map { ($0.code, $0) }))
        }

        func load(_ code: String) -> ShortLinkRecord? {
            reads.withLockedValue { $0 += 1 }
            return records.withLockedValue { $0[code] }
        }
    }

    static func record(_ code: String, link: String = "https://pictlink.com/spring") -> ShortLinkRecord {
        ShortLinkRecord(
            id: Int64(code.hashValue & 0xffff), projectId: "pictlink", domain: prefix.description, code: code,
            longLink: LongLink(prefix: prefix, parameters: LinkParameters([.link: link])).url, parameters: LinkParameters([.link: link]),
            suffixOption: .short, idempotencyKey: nil, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))
    }

    func click(_ cache: LinkCache, _ loader: CountingLoader, _ code: String) async throws -> ResolvedShortLink? {
        try await cache.link(domain: Self.prefix.description, code: code, project: Self.project, prefix: Self.prefix) { loader.load(code) }
    }

    @Test func aLinkIsReadOnceThenServedFromMemoryAndHotFromItsSecondClick() async throws {
        let loader = CountingLoader([Self.record("a")])
        let cache = LinkCache(capacity: 1_000, hotCapacity: 100)
        let first = try #require(try await click(cache, loader, "a"))
        let second = try #require(try await click(cache, loader, "a"))
        let third = try #require(try await click(cache, loader, "a"))
        #expect(loader.reads.withLockedValue { $0 } == 1)
        // The first click's resolved link is not kept (the link stays compact); the second makes it hot, and the
        // third gets that same object.
        #expect(first !== second)
        #expect(second === third)
        #expect(first.record == Self.record("a") && second.record == Self.record("a"))
        #expect(second.link.parameters[.link] == "https://pictlink.com/spring")
    }

    @Test func unknownCodesAreRememberedAndInvalidationRereads() async throws {
        let loader = CountingLoader([Self.record("a")])
        let cache = LinkCache(capacity: 1_000, hotCapacity: 100)
        #expect(try await click(cache, loader, "missing") == nil)
        #expect(try await click(cache, loader, "missing") == nil)
        #expect(loader.reads.withLockedValue { $0 } == 1)
        _ = try await click(cache, loader, "a")
        _ = try await click(cache, loader, "a")
        loader.records.withLockedValue { $0["a"] = Self.record("a", link: "https://pictlink.com/autumn") }
        cache.invalidate(domain: Self.prefix.description, code: "a")
        let changed = try #require(try await click(cache, loader, "a"))
        #expect(changed.record.parameters[.link] == "https://pictlink.com/autumn")
        #expect(loader.reads.withLockedValue { $0 } == 3)
    }

    @Test func anEditThroughThisInstanceIsHotAtOnce() async throws {
        let loader = CountingLoader([])
        let cache = LinkCache(capacity: 1_000, hotCapacity: 100)
        let edited = Self.record("e", link: "https://pictlink.com/edited")
        cache.store(edited, project: Self.project, prefix: Self.prefix)
        let first = try #require(try await click(cache, loader, "e"))
        let second = try #require(try await click(cache, loader, "e"))
        #expect(first === second && first.record == edited)
        #expect(loader.reads.withLockedValue { $0 } == 0)
    }

    @Test func bothLevelsStayWithinTheirCapacities() async throws {
        let codes = (0..<1_000).map { "c\($0)" }
        let loader = CountingLoader(codes.map { Self.record($0) })
        let cache = LinkCache(capacity: 320, hotCapacity: 32)
        for code in codes {
            #expect(try await click(cache, loader, code)?.record.code == code)
        }
        #expect(cache.count == 320)
        #expect(cache.hotCount == 0)
        // Clicked at random: some found compact (and made hot), most read again.
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let code = codes.randomElement(using: &generator)!
            #expect(try await click(cache, loader, code)?.record.code == code)
        }
        #expect(cache.count <= 320 && cache.count >= 300)
        #expect(cache.hotCount <= 32 && cache.hotCount > 0)
        let reads = loader.reads.withLockedValue { $0 }
        #expect(reads > 1_000 + 2_500 && reads < 1_000 + 5_000)
    }

    /// Links made heavy on purpose (a long card, long rules) cannot make the cache heavy: the compact links' bytes
    /// stay within the budget, the oldest leaving early, and a large link is never kept resolved. (Each such link
    /// weighed about 200 KB when only links were counted.)
    @Test func heavyLinksStayWithinTheByteBudget() async throws {
        let title = String(repeating: "t", count: 9_000)
        let codes = (0..<400).map { "h\($0)" }
        let loader = CountingLoader(
            codes.map { code in
                var record = Self.record(code, link: "https://pictlink.com/\(code)")
                record.parameters[.st] = title
                record.longLink = LongLink(prefix: Self.prefix, parameters: record.parameters).url
                return record
            })
        let cache = LinkCache(capacity: 320, hotCapacity: 32)
        for _ in 0..<2 {
            for code in codes { #expect(try await click(cache, loader, code)?.record.parameters[.st] == title) }
        }
        #expect(cache.byteCount <= cache.byteBudget)
        #expect(cache.count < 320 / 4)
        #expect(cache.hotCount == 0)
        // A link kept compact still answers from memory.
        let reads = loader.reads.withLockedValue { $0 }
        let last = try #require(codes.last)
        #expect(try await click(cache, loader, last)?.record.code == last)
        #expect(loader.reads.withLockedValue { $0 } == reads)
        // Ordinary links still fill the cache by count.
        cache.removeAll()
        #expect(cache.byteCount == 0)
        for code in (0..<1_000).map({ "o\($0)" }) { _ = try await click(cache, CountingLoader([Self.record(code)]), code) }
        #expect(cache.count == 320)
    }
}
