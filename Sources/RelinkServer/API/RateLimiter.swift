import Foundation
import NIOConcurrencyHelpers
import RelinkCore

/// Token buckets per API key, in memory: each instance limits what it serves.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private let buckets = NIOLockedValueBox<[Int64: Bucket]>([:])
    private let clock = ContinuousClock()

    /// Takes a token for `keyId`, or says how many whole seconds until one is free.
    func acquire(keyId: Int64, limit: RateLimit) -> Result<Void, APIError> {
        let now = clock.now
        return buckets.withLockedValue { buckets in
            var bucket = buckets[keyId] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let elapsed = now - bucket.updated
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            bucket.tokens = min(Double(limit.burst), bucket.tokens + seconds * limit.requestsPerSecond)
            bucket.updated = now
            defer { buckets[keyId] = bucket }
            guard bucket.tokens >= 1 else {
                return .failure(.rateLimited(retryAfter: max(1, Int(((1 - bucket.tokens) / limit.requestsPerSecond).rounded(.up)))))
            }
            bucket.tokens -= 1
            return .success(())
        }
    }
}
