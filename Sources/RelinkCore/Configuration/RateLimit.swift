/// How fast one API key may mint: a token bucket refilled at `requestsPerSecond`, holding at most `burst`.
public struct RateLimit: Hashable, Sendable {
    public var requestsPerSecond: Double
    public var burst: Int

    public static let `default` = RateLimit(requestsPerSecond: 100, burst: 500)

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(requestsPerSecond: Double, burst: Int) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
    }
}
