import Testing

@testable import RelinkCore

@Suite("Token buckets") struct TokenBucketsTests {
    static let limit = RateLimit(requestsPerSecond: 1, burst: 3)

    @Test func aBucketEmptiesAndRefills() {
        var buckets = TokenBuckets<String>(capacity: 10)
        for _ in 0..<3 { #expect(buckets.take("a", limit: Self.limit, now: 0) == nil) }
        #expect(buckets.take("a", limit: Self.limit, now: 0) == 1)
        #expect(buckets.take("a", limit: Self.limit, now: 0.5) == 0.5)
        #expect(buckets.take("a", limit: Self.limit, now: 1.5) == nil)
        // Another key has its own bucket.
        #expect(buckets.take("b", limit: Self.limit, now: 1.5) == nil)
    }

    /// A million distinct keys through 1,000 slots: never more than 1,000 held, and limiting still works after.
    @Test func aMillionKeysStayWithinTheCapacity() {
        var buckets = TokenBuckets<Int>(capacity: 1_000)
        for key in 0..<1_000_000 {
            _ = buckets.take(key, limit: Self.limit, now: Double(key) / 1_000_000)
            if key % 100_000 == 0 { #expect(buckets.count <= 1_000) }
        }
        #expect(buckets.count == 1_000)
        for _ in 0..<3 { #expect(buckets.take(-1, limit: Self.limit, now: 1) == nil) }
        #expect(buckets.take(-1, limit: Self.limit, now: 1) != nil)
    }

    /// An address being limited keeps its empty bucket while fewer new keys than the capacity arrive, as long as
    /// it keeps asking; an idle one is what goes.
    @Test func aKeyInUseOutlivesIdleOnes() {
        var buckets = TokenBuckets<String>(capacity: 100)
        for _ in 0..<3 { _ = buckets.take("attacker", limit: Self.limit, now: 0) }
        for round in 0..<10 {
            for index in 0..<50 { _ = buckets.take("new-\(round)-\(index)", limit: Self.limit, now: 0) }
            #expect(buckets.take("attacker", limit: Self.limit, now: 0) != nil, "round \(round)")
        }
        #expect(buckets.count == 100)
    }
}
