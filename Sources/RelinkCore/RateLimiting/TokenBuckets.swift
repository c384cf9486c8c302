/// Token buckets for any number of keys in fixed memory: `capacity` slots, a hash index into them, and CLOCK
/// eviction when a new key finds them all taken. Each take costs O(1) (amortised), however many distinct keys
/// arrive: a flood of made-up addresses evicts the idlest buckets instead of growing the table or slowing it.
///
/// A key used since the clock hand last passed keeps its bucket through one more sweep, so an address that is
/// being limited stays limited unless `capacity` other keys arrive in between. A key seen for the first time, or
/// again after eviction, starts with a full bucket.
public struct TokenBuckets<Key: Hashable & Sendable>: Sendable {
    private struct Slot: Sendable {
        var key: Key
        var tokens: Double
        /// Seconds on the caller's monotonic clock.
        var updated: Double
        var referenced: Bool
    }

    private var slots: [Slot] = []
    private var index: [Key: Int] = [:]
    private var hand = 0
    /// The most keys held at once.
    public let capacity: Int

    /// - Parameter capacity: the most keys held at once (at least 1); memory is about 100 bytes a key plus the key.
    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        slots.reserveCapacity(self.capacity)
        index.reserveCapacity(self.capacity)
    }

    /// How many keys are held.
    public var count: Int { slots.count }

    /// Takes a token for `key`, or says how long until one is free.
    /// - Parameters:
    ///   - key: whose bucket.
    ///   - limit: the refill rate and the bucket's size.
    ///   - now: seconds on a monotonic clock.
    /// - Returns: nil when a token was there (and is taken); else the seconds until one is.
    public mutating func take(_ key: Key, limit: RateLimit, now: Double) -> Double? {
        let (position, isNew) = slot(for: key, limit: limit, now: now)
        var bucket = slots[position]
        bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, now - bucket.updated) * limit.requestsPerSecond)
        bucket.updated = now
        // Only a key seen again is marked: a flood of one-off keys evicts its own kind first.
        if !isNew { bucket.referenced = true }
        defer { slots[position] = bucket }
        guard bucket.tokens >= 1 else { return (1 - bucket.tokens) / limit.requestsPerSecond }
        bucket.tokens -= 1
        return nil
    }

    /// The slot of `key`, made (with a full bucket) when it has none; whether it was made now.
    private mutating func slot(for key: Key, limit: RateLimit, now: Double) -> (Int, isNew: Bool) {
        if let position = index[key] { return (position, false) }
        let fresh = Slot(key: key, tokens: Double(limit.burst), updated: now, referenced: false)
        if slots.count < capacity {
            slots.append(fresh)
            index[key] = slots.count - 1
            return (slots.count - 1, true)
        }
        // CLOCK: pass over recently used slots (clearing their mark), evict the first idle one.
        while slots[hand].referenced {
            slots[hand].referenced = false
            hand = (hand + 1) % capacity
        }
        let position = hand
        hand = (hand + 1) % capacity
        index.removeValue(forKey: slots[position].key)
        slots[position] = fresh
        index[key] = position
        return (position, true)
    }
}
