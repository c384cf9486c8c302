import RelinkCore

/// The one rate limiter of every endpoint anyone may call without a key: claims, re-opens, beacons, failed API keys,
/// and the clicks kept for deferred linking. Each endpoint has its own budget per client network (an IPv4 address, an
/// IPv6 /64 by default), and per project for kept clicks, kept in fixed-capacity tables (one for kept clicks, one for
/// the rest), so neither the cost of a request nor the memory grows with the number of clients.
final class ClientLimiter: Sendable {
    enum Endpoint: String, Sendable, CaseIterable {
        case claim, reopen, beacon
        case failedKey = "failed_key"
        /// Keeping a click on a long link (over `PendingClick.inlineLinkLength`) for deferred deep linking: each
        /// distinct one costs its text in the database for a day.
        case longLinkCapture = "long_link_capture"
        /// Keeping any click for deferred deep linking: each costs a row for the project's token window, so one
        /// network cannot fill the disk (`keptClicks`, `--kept-clicks-per-network`).
        case clickCapture = "click_capture"
        /// Keeping a claim's "no match" answer for its install id: a row for the claims' retention (30 days by default),
        /// so a network's answers are kept only up to a budget; past it they are given, not kept.
        case unmatchedClaim = "unmatched_claim"

        /// The budget each network gets unless the server sets another (`keptClicks`, `--kept-clicks-per-network`).
        /// An app claims once per install, so this allows busy carrier NATs, not scanning; beacons come once per
        /// preview page. Re-opens are counted, so a script may not report many. A mistyped key or a rotation gone
        /// wrong still gets its 401s, a scan does not.
        var defaultLimit: RateLimit {
            switch self {
            case .claim, .beacon: RateLimit(requestsPerSecond: 20, burst: 100)
            // A kept long link costs its text (up to 7 KB) beside the click: one a second keeps a network's bytes a day
            // near those of the kept clicks' own budget (10 a second at about 1.3 KB). A looser budget than that one
            // limited nothing past its burst.
            case .longLinkCapture: RateLimit(requestsPerSecond: 1, burst: 100)
            case .reopen: RateLimit(requestsPerSecond: 2, burst: 60)
            case .failedKey: RateLimit(requestsPerSecond: 0.1, burst: 20)
            case .clickCapture: ClientLimiter.defaultKeptClicks
            case .unmatchedClaim: RateLimit(requestsPerSecond: 0.2, burst: 200)
            }
        }

        /// Keeping clicks (any, or on long links): their budgets are each project's, so that what one project's
        /// clicks spend leaves another project's clicks from the same network kept (every other budget is the
        /// network's, whichever project it asks). They have their table of buckets apart: every click from a phone
        /// takes a token, from more networks and projects than any other endpoint sees, and in the one table they
        /// would push out the buckets of networks being limited elsewhere (claims, wrong API keys).
        var keepsClicks: Bool { self == .clickCapture || self == .longLinkCapture }

        /// What the 429's message says was limited.
        var limiting: String {
            switch self {
            case .claim: "deferred-link claims from this address"
            case .reopen: "re-open reports from this address"
            case .beacon: "beacons from this address"
            case .failedKey: "failed API key attempts from this address"
            case .longLinkCapture: "deferred-link clicks on long links from this address"
            case .clickCapture: "deferred-link clicks kept from this address"
            case .unmatchedClaim: "unmatched claims kept from this address"
            }
        }
    }

    struct Key: Hashable, Sendable {
        let endpoint: Endpoint
        let network: ClientNetwork
        /// The project whose budget it is, for the endpoints whose budgets are per project; nil for the others.
        let projectId: String?
    }

    /// Clicks kept for deferred linking per client network and project: 10 a second, and a burst of 1,000
    /// (docs/attribution.md says why no real carrier NAT address comes near it).
    static let defaultKeptClicks = RateLimit(requestsPerSecond: 10, burst: 1_000)

    private let buckets: RateLimiter<Key>
    private let keptClickBuckets: RateLimiter<Key>
    /// Each endpoint's budget: its default, or the server's own where it sets one.
    private let limits: [Endpoint: RateLimit]
    /// The IPv6 prefix length clients are counted by (`--ipv6-limit-prefix`).
    let ipv6PrefixLength: Int
    private let metrics: RelinkMetrics?

    init(
        ipv6PrefixLength: Int = 64, keptClicks: RateLimit = ClientLimiter.defaultKeptClicks, capacity: Int = 100_000,
        metrics: RelinkMetrics? = nil, elapsed: (@Sendable () -> Duration)? = nil
    ) {
        self.ipv6PrefixLength = ipv6PrefixLength
        var limits = Dictionary(uniqueKeysWithValues: Endpoint.allCases.map { ($0, $0.defaultLimit) })
        limits[.clickCapture] = keptClicks
        self.limits = limits
        buckets = RateLimiter(capacity: capacity, elapsed: elapsed)
        keptClickBuckets = RateLimiter(capacity: capacity, elapsed: elapsed)
        self.metrics = metrics
    }

    /// The budget `endpoint` gives each network (and project, where it is per project).
    func limit(of endpoint: Endpoint) -> RateLimit { limits[endpoint] ?? endpoint.defaultLimit }

    /// Takes a token of `endpoint`'s budget for the network of `clientAddress`, or answers the 429 to send.
    func acquire(_ endpoint: Endpoint, clientAddress: String?) -> Result<Void, APIError> {
        acquire(endpoint, network: ClientNetwork(clientAddress, ipv6PrefixLength: ipv6PrefixLength))
    }

    /// Takes a token of `endpoint`'s budget for `network` (a request's, from its context), and for `projectId` where
    /// the endpoint's budgets are per project, or answers the 429 to send.
    func acquire(_ endpoint: Endpoint, network: ClientNetwork, projectId: String? = nil) -> Result<Void, APIError> {
        let key = Key(endpoint: endpoint, network: network, projectId: endpoint.keepsClicks ? projectId : nil)
        let table = endpoint.keepsClicks ? keptClickBuckets : buckets
        let outcome = table.acquire(keyId: key, limit: limit(of: endpoint), limiting: endpoint.limiting)
        if case .failure = outcome { metrics?.rateLimited(endpoint.rawValue) }
        return outcome
    }
}
