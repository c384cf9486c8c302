import Foundation
import NIOConcurrencyHelpers
import RelinkCore

/// Token buckets per key (an API key's id, a client address), in memory: each instance limits what it serves.
final class RateLimiter<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = NIOLockedValueBox<[Key: Bucket]>([:])
    private let clock = ContinuousClock()
    /// Buckets untouched this long are full again and can go, so the table does not grow without bound.
    private let idle: Duration = .seconds(600)

    /// Takes a token for `keyId`, or answers 429 saying what was limited (`limiting`, such as "minting with this
    /// API key") and how many whole seconds until a token is free.
    func acquire(keyId: Key, limit: RateLimit, limiting: String) -> Result<Void, APIError> {
        take(keyId: keyId, limit: limit, consume: true).mapError { .rateLimited(retryAfter: $0.seconds, limiting: limiting) }
    }

    /// Whether `keyId` has a token left, without taking it: for limits on failures, which only failures spend.
    func check(keyId: Key, limit: RateLimit, limiting: String) -> Result<Void, APIError> {
        take(keyId: keyId, limit: limit, consume: false).mapError { .rateLimited(retryAfter: $0.seconds, limiting: limiting) }
    }

    struct RetryAfter: Error {
        var seconds: Int
    }

    private func take(keyId: Key, limit: RateLimit, consume: Bool) -> Result<Void, RetryAfter> {
        let now = clock.now
        return buckets.withLockedValue { buckets in
            if buckets.count > 100_000 { buckets = buckets.filter { now - $0.value.updated < idle } }
            var bucket = buckets[keyId] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds * limit.requestsPerSecond)
            bucket.updated = now
            defer { buckets[keyId] = bucket }
            guard bucket.tokens >= 1 else {
                return .failure(RetryAfter(seconds: max(1, Int(((1 - bucket.tokens) / limit.requestsPerSecond).rounded(.up)))))
            }
            if consume { bucket.tokens -= 1 }
            return .success(())
        }
    }
}
