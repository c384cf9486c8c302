import Foundation
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// Short links by domain and code, in memory, so a click does not query the database. Edits made through this
/// instance replace their entry at once; with a shared store (PostgreSQL), other instances' edits arrive through
/// `apply(_:)` within milliseconds. As a backstop, entries are re-read after `maximumAge`, and unknown codes are
/// remembered for `missingAge` only.
///
/// Two levels, in 16 shards, each a locked dictionary: up to `capacity` links kept compact (`CompactShortLink`, a few
/// hundred bytes, one allocation), and of those, up to `hotCapacity` clicked again since they were read also kept
/// resolved as clicks need them (`ResolvedShortLink`, its plans made; a hit there costs one lookup). A click on a
/// compact link resolves it from memory, without the store, and makes it hot. Past either capacity, a new entry
/// takes the place of its shard's oldest (first in, first out), so a million links clicked at random cost a steady,
/// bounded memory and no pause to clear the cache. Links are counted in bytes too: past `byteBudget` (1 KB a link
/// on average, several times a usual link's), the oldest leave early, and a link over `largeLink` bytes (long rules,
/// a long card) is never kept resolved, so links made heavy on purpose cannot make the cache heavy.
public final class LinkCache: Sendable {
    struct Key: Hashable {
        let domain: String
        let code: String
    }

    /// One cached answer: the link (nil for a code no link has), when it was read, and, while it is hot, the link
    /// resolved. Sendable: a `CompactShortLink` is never changed once made (the standard library does not let a
    /// `ManagedBuffer` say so itself).
    private struct Slot: @unchecked Sendable {
        var link: CompactShortLink?
        var loaded: ContinuousClock.Instant
        var resolved: ResolvedShortLink?
        /// What the byte budget counts for it: the compact link and the slot's own keys and bookkeeping.
        let cost: Int

        init(link: CompactShortLink?, loaded: ContinuousClock.Instant, resolved: ResolvedShortLink? = nil) {
            self.link = link
            self.loaded = loaded
            self.resolved = resolved
            cost = 128 + (link?.approximateByteCount ?? 0)
        }
    }

    /// A shard's slots, the order they came in (a ring, for eviction), the order they became hot (a ring, for
    /// cooling), and a count of invalidations: a load that started before an invalidation may have read the old row,
    /// so its result is used once but not kept.
    private struct Shard: Sendable {
        var slots: [Key: Slot] = [:]
        var order: [Key?]
        var next = 0
        var hot: [Key?]
        var nextHot = 0
        var generation: UInt64 = 0
        /// The slots' costs, summed.
        var bytes = 0
        let byteBudget: Int

        init(capacity: Int, hotCapacity: Int, byteBudget: Int) {
            self.byteBudget = byteBudget
            slots.reserveCapacity(capacity)
            order = Array(repeating: nil, count: capacity)
            hot = Array(repeating: nil, count: hotCapacity)
        }

        /// Puts `slot` in; returns what gave way, to be released after the lock.
        mutating func put(_ key: Key, _ slot: Slot) -> [Slot] {
            var released: [Slot] = []
            let previous = slots.updateValue(slot, forKey: key)
            bytes += slot.cost
            if let previous {
                bytes -= previous.cost
                released.append(previous)
            } else {
                // A new key: it takes the ring's next place, and the key there (if still held) leaves.
                if let old = order[next], old != key, let evicted = slots.removeValue(forKey: old) {
                    bytes -= evicted.cost
                    released.append(evicted)
                }
                order[next] = key
                next = (next + 1) % order.count
            }
            // Over the byte budget, the oldest leave as well (never the entry just put), their places left empty.
            var cursor = next
            var visited = 0
            while bytes > byteBudget, visited < order.count {
                if let old = order[cursor], old != key {
                    if let evicted = slots.removeValue(forKey: old) {
                        bytes -= evicted.cost
                        released.append(evicted)
                    }
                    order[cursor] = nil
                }
                cursor = (cursor + 1) % order.count
                visited += 1
            }
            if slot.resolved != nil, previous?.resolved == nil { released += makeHot(key) }
            return released
        }

        /// Takes `key` out; what left, to be released after the lock.
        mutating func remove(_ key: Key) -> Slot? {
            guard let removed = slots.removeValue(forKey: key) else { return nil }
            bytes -= removed.cost
            return removed
        }

        /// Notes `key` as hot; the key that was hot longest cools (keeps its compact link, drops the resolved one).
        mutating func makeHot(_ key: Key) -> [Slot] {
            var released: [Slot] = []
            if let old = hot[nextHot], old != key, var cooled = slots[old], cooled.resolved != nil {
                released.append(cooled)
                cooled.resolved = nil
                slots[old] = cooled
            }
            hot[nextHot] = key
            nextHot = (nextHot + 1) % hot.count
            return released
        }
    }

    private let shards: [NIOLockedValueBox<Shard>]
    private let clock = ContinuousClock()
    let capacity: Int
    let hotCapacity: Int
    let maximumAge: Duration
    let missingAge: Duration

    static let shardCount = 16
    /// The default capacity (`relink serve --link-cache`): 65,536, as 16 shards of 4,096, sized by what the process
    /// holds with the cache full, a million links clicked at random, on either store
    /// (docs/performance.md#link-cache-sizes).
    public static let defaultCapacity = 65_536
    /// At most this many links are kept resolved (a resolved link with its plans takes several times a compact
    /// one's memory); the rest compact. Links a project edits or creates through this instance are hot at once.
    public static let defaultHotCapacity = 4_096
    /// The bytes the cache may hold per link of its capacity, on average.
    static let bytesPerLink = 1_024
    /// A link holding more than this is kept compact only, and resolved again at each click.
    static let largeLink = 8 * 1_024
    /// The bytes all compact links may hold together.
    let byteBudget: Int

    public init(
        capacity: Int = LinkCache.defaultCapacity, hotCapacity: Int = LinkCache.defaultHotCapacity, maximumAge: Duration = .seconds(300),
        missingAge: Duration = .seconds(5)
    ) {
        self.capacity = max(Self.shardCount, capacity)
        self.hotCapacity = max(Self.shardCount, min(self.capacity, hotCapacity))
        self.maximumAge = maximumAge
        self.missingAge = missingAge
        let perShard = max(1, self.capacity / Self.shardCount)
        let hotPerShard = max(1, self.hotCapacity / Self.shardCount)
        byteBudget = self.capacity * Self.bytesPerLink
        let budgetPerShard = byteBudget / Self.shardCount
        shards = (0..<Self.shardCount).map { _ in
            NIOLockedValueBox(Shard(capacity: perShard, hotCapacity: hotPerShard, byteBudget: budgetPerShard))
        }
    }

    private func shard(_ key: Key) -> NIOLockedValueBox<Shard> {
        shards[Int(UInt(bitPattern: key.hashValue) % UInt(Self.shardCount))]
    }

    /// What memory says of a link: its answer (the link resolved, or nil for a code no link has), or nothing fresh.
    enum Lookup {
        case answered(ResolvedShortLink?)
        /// Not in memory (or too old): the store must be asked. `generation` is the shard's when it was asked.
        case missing(generation: UInt64)
    }

    /// The link from memory alone, when what is there is fresh: a click that needs no store (the lean path) and the
    /// first step of `link(…)`.
    func fromMemory(domain: String, code: String, project: Project, prefix: DomainURIPrefix) -> Lookup {
        let key = Key(domain: domain, code: code)
        let shard = shard(key)
        let now = clock.now
        let (cached, generation) = shard.withLockedValue { ($0.slots[key], $0.generation) }
        guard let cached, now - cached.loaded < (cached.link == nil ? missingAge : maximumAge) else { return .missing(generation: generation) }
        if let resolved = cached.resolved { return .answered(resolved) }
        guard let compact = cached.link else { return .answered(nil) }
        // A compact link: resolved again from memory, and hot from now on (unless it changed meanwhile, or is large).
        let resolved = ResolvedShortLink(record: compact.record(prefix: prefix), project: project, prefix: prefix)
        guard cached.cost <= Self.largeLink else { return .answered(resolved) }
        let released = shard.withLockedValue { shard -> [Slot] in
            guard shard.generation == generation, var slot = shard.slots[key], slot.link === compact, slot.resolved == nil else { return [] }
            slot.resolved = resolved
            shard.slots[key] = slot
            return shard.makeHot(key)
        }
        _ = released
        return .answered(resolved)
    }

    /// The link resolved, from memory when fresh, else from `load` (whose answer, found or not, is remembered); nil
    /// for a code no link has.
    func link(
        domain: String, code: String, project: Project, prefix: DomainURIPrefix, load: () async throws -> ShortLinkRecord?
    ) async throws -> ResolvedShortLink? {
        let generation: UInt64
        switch fromMemory(domain: domain, code: code, project: project, prefix: prefix) {
        case .answered(let resolved): return resolved
        case .missing(let asked): generation = asked
        }
        return remember(try await load(), domain: domain, code: code, project: project, prefix: prefix, generation: generation)
    }

    /// The link resolved, from memory when fresh, else from `load`, which reads the store on the calling thread
    /// (SQLite's lookups; the lean path).
    func linkNow(
        domain: String, code: String, project: Project, prefix: DomainURIPrefix, load: () throws -> ShortLinkRecord?
    ) throws -> ResolvedShortLink? {
        switch fromMemory(domain: domain, code: code, project: project, prefix: prefix) {
        case .answered(let resolved): return resolved
        case .missing(let generation):
            return remember(try load(), domain: domain, code: code, project: project, prefix: prefix, generation: generation)
        }
    }

    /// Keeps what the store said of a link (found or not), unless it changed since `generation`; the link resolved.
    private func remember(
        _ record: ShortLinkRecord?, domain: String, code: String, project: Project, prefix: DomainURIPrefix, generation: UInt64
    ) -> ResolvedShortLink? {
        let key = Key(domain: domain, code: code)
        let shard = shard(key)
        guard let record else {
            put(key, Slot(link: nil, loaded: clock.now), in: shard, ifGeneration: generation)
            return nil
        }
        // Kept compact only: the link resolved for this click is released with it, so a link clicked once (a
        // personalised mailing's) leaves a few hundred bytes behind; a second click makes it hot.
        put(
            key, Slot(link: CompactShortLink.make(record: record, project: project, prefix: prefix), loaded: clock.now), in: shard,
            ifGeneration: generation)
        return ResolvedShortLink(record: record, project: project, prefix: prefix)
    }

    /// Replaces the entry for a link this instance created or changed.
    func store(_ record: ShortLinkRecord, project: Project, prefix: DomainURIPrefix) {
        let key = Key(domain: record.domain, code: record.code)
        var slot = Slot(link: CompactShortLink.make(record: record, project: project, prefix: prefix), loaded: clock.now)
        if slot.cost <= Self.largeLink { slot.resolved = ResolvedShortLink(record: record, project: project, prefix: prefix) }
        put(key, slot, in: shard(key))
    }

    /// Forgets a link, so the next click reads it again.
    public func invalidate(domain: String, code: String) {
        let key = Key(domain: domain, code: code)
        let released = shard(key).withLockedValue { shard in
            shard.generation &+= 1
            return shard.remove(key)
        }
        _ = released
    }

    public func removeAll() {
        for shard in shards {
            let released = shard.withLockedValue { shard in
                let slots = shard.slots
                shard.slots = [:]
                shard.order = Array(repeating: nil, count: shard.order.count)
                shard.hot = Array(repeating: nil, count: shard.hot.count)
                shard.next = 0
                shard.nextHot = 0
                shard.bytes = 0
                shard.generation &+= 1
                return slots
            }
            _ = released
        }
    }

    /// A change another instance made (or a reset of the change feed).
    public func apply(_ change: LinkChange) {
        switch change {
        case .link(let domain, let code): invalidate(domain: domain, code: code)
        case .all: removeAll()
        }
    }

    var count: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.slots.count } } }
    var hotCount: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.slots.values.count { $0.resolved != nil } } } }
    /// The bytes the compact links are counted for.
    var byteCount: Int { shards.reduce(0) { $0 + $1.withLockedValue { $0.bytes } } }

    private func put(_ key: Key, _ slot: Slot, in shard: NIOLockedValueBox<Shard>, ifGeneration generation: UInt64? = nil) {
        // What gives way is released after the lock, not under it.
        let released = shard.withLockedValue { shard -> [Slot] in
            if let generation, shard.generation != generation { return [] }
            return shard.put(key, slot)
        }
        _ = released
    }
}
