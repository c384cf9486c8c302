import Foundation
import NIOConcurrencyHelpers
import RelinkStore

/// Short links by domain and code, in memory, so a click does not query the database: a hit costs one locked
/// dictionary lookup in one of 16 shards. Edits made through this instance replace their entry at once; with a shared
/// store (PostgreSQL), other instances' edits arrive through `apply(_:)` within milliseconds. As a backstop, entries
/// are re-read after `maximumAge`, and unknown codes are remembered for `missingAge` only.
///
/// At most `capacity` entries are held; past it, each new entry takes the place of its shard's oldest (first in,
/// first out), so a million links clicked at random cost a steady, bounded memory and no pause to clear the cache.
public final class LinkCache: Sendable {
    struct Key: Hashable {
        let domain: String
        let code: String
    }

    /// One cached answer: the link as clicks need it (made once, when it is loaded), or nil for a code no link has.
    /// A class, so a dictionary slot holds a pointer, not a whole record.
    final class Entry: Sendable {
        let resolved: ResolvedShortLink?
        let loaded: ContinuousClock.Instant

        var link: ShortLinkRecord? { resolved?.record }

        init(resolved: ResolvedShortLink?, loaded: ContinuousClock.Instant) {
            self.resolved = resolved
            self.loaded = loaded
        }
    }

    /// A shard's entries, the order they came in (a ring, for eviction), and a count of invalidations: a load that
    /// started before an invalidation may have read the old row, so its result is used once but not kept.
    private struct Shard {
        var entries: [Key: Entry] = [:]
        var order: [Key?]
        var next = 0
        var generation: UInt64 = 0

        init(capacity: Int) {
            order = Array(repeating: nil, count: capacity)
        }
    }

    private let shards: [NIOLockedValueBox<Shard>]
    private let clock = ContinuousClock()
    let capacity: Int
    let maximumAge: Duration
    let missingAge: Duration

    static let shardCount = 16
    /// The default capacity (`relink serve --link-cache`).
    public static let defaultCapacity = 100_000

    public init(capacity: Int = LinkCache.defaultCapacity, maximumAge: Duration = .seconds(300), missingAge: Duration = .seconds(5)) {
        self.capacity = max(Self.shardCount, capacity)
        self.maximumAge = maximumAge
        self.missingAge = missingAge
        let perShard = max(1, self.capacity / Self.shardCount)
        shards = (0..<Self.shardCount).map { _ in NIOLockedValueBox(Shard(capacity: perShard)) }
    }

    private func shard(_ key: Key) -> NIOLockedValueBox<Shard> {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(Self.shardCount))]
    }

    /// The link, from memory when fresh, else from `load` (whose answer, found or not, is remembered, a found link
    /// as `resolve` makes it).
    func entry(
        domain: String, code: String, load: () async throws -> ShortLinkRecord?, resolve: (ShortLinkRecord) -> ResolvedShortLink
    ) async throws -> Entry {
        let key = Key(domain: domain, code: code)
        let shard = shard(key)
        let now = clock.now
        let (cached, generation) = shard.withLockedValue { ($0.entries[key], $0.generation) }
        if let cached, now - cached.loaded < (cached.resolved == nil ? missingAge : maximumAge) {
            return cached
        }
        let entry = Entry(resolved: try await load().map(resolve), loaded: clock.now)
        put(key, entry, in: shard, ifGeneration: generation)
        return entry
    }

    /// Replaces the entry for a link this instance created or changed.
    func store(_ resolved: ResolvedShortLink) {
        let key = Key(domain: resolved.record.domain, code: resolved.record.code)
        put(key, Entry(resolved: resolved, loaded: clock.now), in: shard(key))
    }

    /// Forgets a link, so the next click reads it again.
    public func invalidate(domain: String, code: String) {
        let key = Key(domain: domain, code: code)
        shard(key).withLockedValue { shard in
            shard.entries.removeValue(forKey: key)
            shard.generation &+= 1
        }
    }

    public func removeAll() {
        for shard in shards {
            shard.withLockedValue { shard in
                shard.entries.removeAll()
                shard.order = Array(repeating: nil, count: shard.order.count)
                shard.next = 0
                shard.generation &+= 1
            }
        }
    }

    /// A change another instance made (or a reset of the change feed).
    public func apply(_ change: LinkChange) {
        switch change {
        case .link(let domain, let code): invalidate(domain: domain, code: code)
        case .all: removeAll()
        }
    }

    var count: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.entries.count } } }

    private func put(_ key: Key, _ entry: Entry, in shard: NIOLockedValueBox<Shard>, ifGeneration generation: UInt64? = nil) {
        // The entry that gives way is released after the lock, not under it.
        let evicted: Entry? = shard.withLockedValue { shard in
            if let generation, shard.generation != generation { return nil }
            if shard.entries.updateValue(entry, forKey: key) != nil { return nil }
            // A new key: it takes the ring's next place, and the key there (if still held) leaves.
            var evicted: Entry?
            if let old = shard.order[shard.next], old != key { evicted = shard.entries.removeValue(forKey: old) }
            shard.order[shard.next] = key
            shard.next = (shard.next + 1) % shard.order.count
            return evicted
        }
        _ = evicted
    }
}
