import Atomics
import CoreMetrics
import NIOConcurrencyHelpers
import Prometheus
import RelinkCore

/// Everything Relink counts, as swift-metrics types made by one Prometheus factory per application (never the
/// process-wide `MetricsSystem`, so tests may build many applications). `/metrics` renders its registry.
///
/// Labels take a handful of fixed values each (never a link, code, key or address), so the number of series is
/// bounded whatever the traffic.
public final class RelinkMetrics: Sendable {
    /// What a request asked for.
    public enum RequestKind: String, Sendable, CaseIterable {
        case longLink = "long_link"
        case route
        case shortLink = "short_link"
        /// A click on a path or domain that holds no link.
        case unknownLink = "unknown_link"
        case api, association, beacon, health, metrics, console
    }

    /// How a request ended: for clicks what the planner chose, for the rest the class of the status.
    public enum Outcome: String, Sendable, CaseIterable {
        case redirect
        case appPreview = "app_preview"
        case socialPreview = "social_preview"
        case debug, rejected
        case notFound = "not_found"
        case gone, ok
        case clientError = "client_error"
        case rateLimited = "rate_limited"
        case unavailable
        case serverError = "server_error"

        init(status: Int) {
            switch status {
            case 429: self = .rateLimited
            case 503: self = .unavailable
            case 404: self = .notFound
            case 410: self = .gone
            case 300..<400: self = .redirect
            case 400..<500: self = .clientError
            case 500...: self = .serverError
            default: self = .ok
            }
        }
    }

    /// The in-memory queues between requests and the store.
    public enum Queue: String, Sendable, CaseIterable {
        /// Click, redirect and install counters (one entry per link, day, platform and event).
        case clickEvents = "click_events"
        case pendingClicks = "pending_clicks"
    }

    public let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory
    /// One slot per kind, platform (or none) and outcome, found by arithmetic on the enums' positions and filled on
    /// first use (a series appears in `/metrics` once it has counted something): counting takes no lock.
    private let requests: [ManagedAtomicLazyReference<CoreMetrics.Counter>]
    private let durations: [RequestKind: CoreMetrics.Timer]
    private let queueDepths: [Queue: CoreMetrics.Gauge]
    private let queueDrops: [Queue: CoreMetrics.Counter]
    private let flushDurations: [Queue: CoreMetrics.Timer]
    private let flushFailures: [Queue: CoreMetrics.Counter]
    private let claims: [String: CoreMetrics.Counter]
    /// `relink_shadow_matches_total{confidence, outcome}`: outcome `same_click` or `other_click` (`none` for NONE).
    private let shadowMatches: [String: CoreMetrics.Counter]
    private let rateLimits: NIOLockedValueBox<[String: CoreMetrics.Counter]>
    private let storeErrors: NIOLockedValueBox<[String: CoreMetrics.Counter]>
    private let cacheEntries: CoreMetrics.Gauge
    /// Run before each scrape: they set the gauges that are read off state (queue depths, cache size).
    private let scrapeHooks = NIOLockedValueBox([@Sendable (RelinkMetrics) -> Void]())

    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // A click takes well under a millisecond; the buckets resolve that, up to the store's 1 s wait and beyond.
        factory.defaultDurationHistogramBuckets = [
            .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
            .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
            .milliseconds(2500), .seconds(5),
        ]
        self.registry = registry
        self.factory = factory
        requests = (0..<Self.requestSeriesCount).map { _ in ManagedAtomicLazyReference() }
        durations = Self.series(RequestKind.allCases) {
            CoreMetrics.Timer(label: "relink_request_duration_seconds", dimensions: [("kind", $0)], factory: factory)
        }
        queueDepths = Self.series(Queue.allCases) {
            CoreMetrics.Gauge(label: "relink_queue_depth", dimensions: [("queue", $0)], factory: factory)
        }
        queueDrops = Self.series(Queue.allCases) {
            CoreMetrics.Counter(label: "relink_queue_dropped_total", dimensions: [("queue", $0)], factory: factory)
        }
        flushDurations = Self.series(Queue.allCases) {
            CoreMetrics.Timer(label: "relink_flush_duration_seconds", dimensions: [("queue", $0)], factory: factory)
        }
        flushFailures = Self.series(Queue.allCases) {
            CoreMetrics.Counter(label: "relink_flush_failures_total", dimensions: [("queue", $0)], factory: factory)
        }
        claims = Dictionary(
            uniqueKeysWithValues: (AttributionConfidence.allCases.map(\.rawValue) + ["NONE"]).map {
                ($0, CoreMetrics.Counter(label: "relink_claims_total", dimensions: [("confidence", $0)], factory: factory))
            })
        var shadows: [String: CoreMetrics.Counter] = [:]
        for confidence in [AttributionConfidence.default, .weak] {
            for same in [true, false] {
                shadows["\(confidence.rawValue)|\(same)"] = CoreMetrics.Counter(
                    label: "relink_shadow_matches_total",
                    dimensions: [("confidence", confidence.rawValue), ("outcome", same ? "same_click" : "other_click")], factory: factory)
            }
        }
        shadows["NONE|false"] = CoreMetrics.Counter(
            label: "relink_shadow_matches_total", dimensions: [("confidence", "NONE"), ("outcome", "none")], factory: factory)
        shadowMatches = shadows
        rateLimits = NIOLockedValueBox([:])
        storeErrors = NIOLockedValueBox([:])
        cacheEntries = CoreMetrics.Gauge(label: "relink_link_cache_entries", factory: factory)
    }

    /// One metric per value of a label, made up front so that counting never looks anything up under a lock.
    private static func series<Key: RawRepresentable<String> & Hashable, Metric>(
        _ keys: [Key], _ make: (String) -> Metric
    ) -> [Key: Metric] {
        Dictionary(uniqueKeysWithValues: keys.map { ($0, make($0.rawValue)) })
    }

    // MARK: Requests

    /// Counts a request and its time. `platform` is the clicking client's, nil for requests that are not clicks.
    public func request(_ kind: RequestKind, platform: Platform?, outcome: Outcome, duration: Duration) {
        let slot = requests[Self.requestSeries(kind, platform, outcome)]
        let counter =
            slot.load()
            ?? slot.storeIfNilThenLoad(
                // Two threads may both make it; the factory hands both the same underlying series.
                CoreMetrics.Counter(
                    label: "relink_requests_total",
                    dimensions: [("kind", kind.rawValue), ("platform", platform?.metricsLabel ?? "none"), ("outcome", outcome.rawValue)],
                    factory: factory))
        counter.increment()
        durations[kind]?.recordNanoseconds(duration.nanoseconds)
    }

    private static let kinds = RequestKind.allCases
    private static let platforms = Platform.allCases
    private static let outcomes = Outcome.allCases
    private static let requestSeriesCount = kinds.count * (platforms.count + 1) * outcomes.count

    private static func requestSeries(_ kind: RequestKind, _ platform: Platform?, _ outcome: Outcome) -> Int {
        let kindIndex = kinds.firstIndex(of: kind)!
        let platformIndex = platform.map { platforms.firstIndex(of: $0)! + 1 } ?? 0
        let outcomeIndex = outcomes.firstIndex(of: outcome)!
        return (kindIndex * (platforms.count + 1) + platformIndex) * outcomes.count + outcomeIndex
    }

    // MARK: Queues and the store

    func queueDropped(_ queue: Queue, count: Int = 1) {
        guard count > 0 else { return }
        queueDrops[queue]?.increment(by: Int64(count))
    }

    func flushed(_ queue: Queue, duration: Duration, failed: Bool) {
        flushDurations[queue]?.recordNanoseconds(duration.nanoseconds)
        if failed { flushFailures[queue]?.increment() }
    }

    func setQueueDepth(_ queue: Queue, _ depth: Int) { queueDepths[queue]?.record(depth) }

    func setCacheEntries(_ count: Int) { cacheEntries.record(count) }

    /// A store call that failed: `operation` is what it was for (`lookup`, `api`, `flush`).
    func storeError(_ operation: String) {
        labelled(storeErrors, "relink_store_errors_total", "operation", operation).increment()
    }

    // MARK: Attribution and limits

    func claimAnswered(_ confidence: AttributionConfidence?) { claims[confidence?.rawValue ?? "NONE"]?.increment() }

    /// A claim settled by its token, scored against what the fingerprint matcher would have answered.
    func shadowMatch(_ confidence: AttributionConfidence?, sameClick: Bool) {
        let key = "\(confidence?.rawValue ?? "NONE")|\(sameClick)"
        shadowMatches[key]?.increment()
    }

    /// A request refused by a rate limit: `endpoint` is which budget (`claim`, `beacon`, `mint`, …).
    func rateLimited(_ endpoint: String) {
        labelled(rateLimits, "relink_rate_limited_total", "endpoint", endpoint).increment()
    }

    private func labelled(
        _ box: NIOLockedValueBox<[String: CoreMetrics.Counter]>, _ label: String, _ dimension: String, _ value: String
    ) -> CoreMetrics.Counter {
        box.withLockedValue { counters in
            if let counter = counters[value] { return counter }
            let counter = CoreMetrics.Counter(label: label, dimensions: [(dimension, value)], factory: factory)
            counters[value] = counter
            return counter
        }
    }

    // MARK: Rendering

    /// Adds a function run before each scrape, to read gauges off state.
    func onScrape(_ hook: @escaping @Sendable (RelinkMetrics) -> Void) { scrapeHooks.withLockedValue { $0.append(hook) } }

    /// The Prometheus text exposition of everything counted so far.
    public func render() -> String {
        for hook in scrapeHooks.withLockedValue({ $0 }) { hook(self) }
        return registry.emitToString()
    }
}

extension Duration {
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension Platform {
    /// Lower case, as Prometheus labels usually are.
    var metricsLabel: String {
        switch self {
        case .iPhone: "iphone"
        case .iPad: "ipad"
        case .android: "android"
        case .desktop: "desktop"
        case .crawler: "crawler"
        case .other: "other"
        }
    }
}
