import NIOConcurrencyHelpers
import RelinkCore

/// Token buckets per key (an API key's id, a client network), in memory: each instance limits what it serves.
/// Sharded by key, each shard a fixed-size `TokenBuckets` behind its own lock, so the cost of a request and the
/// memory held do not grow with the number of clients.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    private let shards: [NIOLockedValueBox<TokenBuckets<Key>>]
    private let elapsed: @Sendable () -> Duration

    /// - Parameters:
    ///   - capacity: the most keys held at once, over all shards; the idlest are forgotten past it.
    ///   - elapsed: the time buckets refill by; by default a monotonic clock's since this limiter began.
    init(capacity: Int = 100_000, shards: Int = 16, elapsed: (@Sendable () -> Duration)? = nil) {
        let perShard = max(1, capacity / shards)
        self.shards = (0..<shards).map { _ in NIOLockedValueBox(TokenBuckets<Key>(capacity: perShard)) }
        if let elapsed {
            self.elapsed = elapsed
        } else {
            let clock = ContinuousClock()
            let start = clock.now
            self.elapsed = { clock.now - start }
        }
    }

    /// Takes a token for `keyId`, or answers 429 saying what was limited (`limiting`, such as "minting with this
    /// API key") and how many whole seconds until a token is free.
    func acquire(keyId: Key, limit: RateLimit, limiting: String) -> Result<Void, APIError> {
        let elapsed = elapsed()
        let now = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let shard = shards[Int(UInt(bitPattern: keyId.hashValue) % UInt(shards.count))]
        guard let wait = shard.withLockedValue({ $0.take(keyId, limit: limit, now: now) }) else {
            return .success(())
        }
        return .failure(.rateLimited(retryAfter: max(1, Int(wait.rounded(.up))), limiting: limiting))
    }
}
