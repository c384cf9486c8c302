import Atomics
import NIOConcurrencyHelpers
import Prometheus
import RelinkCore

/// Everything Relink counts, in one Prometheus registry per application (never the process-wide `MetricsSystem`, so
/// tests may build many applications). `/metrics` renders it. Each family is made from its `Family` case, which
/// names it and gives its help text.
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
        /// A request on an email service's tracking domain passed to the service (`clickTracking`).
        case clickTracking = "click_tracking"
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

    /// Every family `/metrics` shows, with its help text: written once here (docs/operations.md lists them).
    enum Family: String, CaseIterable {
        case requests = "relink_requests_total"
        case requestDuration = "relink_request_duration_seconds"
        case queueDepth = "relink_queue_depth"
        case queueDropped = "relink_queue_dropped_total"
        case flushDuration = "relink_flush_duration_seconds"
        case flushFailures = "relink_flush_failures_total"
        case claims = "relink_claims_total"
        case shadowMatches = "relink_shadow_matches_total"
        case rateLimited = "relink_rate_limited_total"
        case storeErrors = "relink_store_errors_total"
        case linkCacheEntries = "relink_link_cache_entries"
        case clickTrackingErrors = "relink_click_tracking_errors_total"
        case pendingClicksOverCap = "relink_pending_clicks_over_cap_total"

        var help: String {
            switch self {
            case .requests:
                "Requests answered, by what they asked for (kind), the clicking client's platform (none when not a click) and how they ended."
            case .requestDuration: "Time from a request's arrival to its response, by kind."
            case .queueDepth: "Entries waiting in an in-memory queue for the store, by queue, when scraped."
            case .queueDropped: "Entries dropped because an in-memory queue was full, by queue."
            case .flushDuration: "Time to write one batch of a queue to the store, by queue."
            case .flushFailures: "Batches of a queue that the store failed to write, by queue."
            case .claims: "Install claims answered, by the confidence of the match (NONE when there was none)."
            case .shadowMatches:
                "Claims settled by their click token, by what the fingerprint matcher would have answered (confidence) and whether it found the same click."
            case .rateLimited: "Requests refused by a rate limit, by budget (endpoint)."
            case .storeErrors: "Store calls that failed, by what they were for (operation)."
            case .linkCacheEntries: "Links held in the in-memory link cache, when scraped."
            case .clickTrackingErrors:
                "Requests to an email service's tracking upstream that got no answer to pass on, by reason (timeout, unreachable, refused_address, busy, bad_answer, loop)."
            case .pendingClicksOverCap:
                "Clicks redirected without being kept for deferred links because their project held its cap of pending clicks (deferred.maxPendingClicks), by project."
            }
        }

        /// The whole name is the descriptor's metric name: the unit is already in it.
        var descriptor: MetricNameDescriptor { MetricNameDescriptor(metricName: rawValue, unitName: "", helpText: help) }
    }

    public let registry: PrometheusCollectorRegistry
    /// A click takes well under a millisecond; the buckets resolve that, up to the store's 1 s wait and beyond.
    private static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1),
        .milliseconds(2500), .seconds(5),
    ]
    /// One slot per kind, platform (or none) and outcome, found by arithmetic on the enums' positions and filled on
    /// first use (a series appears in `/metrics` once it has counted something): counting takes no lock.
    private let requests: [ManagedAtomicLazyReference<Counter>]
    private let durations: [RequestKind: DurationHistogram]
    private let queueDepths: [Queue: Gauge]
    private let queueDrops: [Queue: Counter]
    private let flushDurations: [Queue: DurationHistogram]
    private let flushFailures: [Queue: Counter]
    private let claims: [String: Counter]
    /// `relink_shadow_matches_total{confidence, outcome}`: outcome `same_click` or `other_click` (`none` for NONE).
    private let shadowMatches: [String: Counter]
    private let rateLimits: NIOLockedValueBox<[String: Counter]>
    private let storeErrors: NIOLockedValueBox<[String: Counter]>
    private let clickTrackingErrors: NIOLockedValueBox<[String: Counter]>
    /// By project: only those in routes.json keep clicks.
    private let pendingClicksOverCap: NIOLockedValueBox<[String: Counter]>
    private let cacheEntries: Gauge
    /// Run before each scrape: they set the gauges that are read off state (queue depths, cache size).
    private let scrapeHooks = NIOLockedValueBox([@Sendable (RelinkMetrics) -> Void]())

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        requests = (0..<Self.requestSeriesCount).map { _ in ManagedAtomicLazyReference() }
        durations = Self.series(RequestKind.allCases) {
            registry.makeDurationHistogram(descriptor: Family.requestDuration.descriptor, labels: [("kind", $0)], buckets: Self.durationBuckets)
        }
        queueDepths = Self.series(Queue.allCases) { registry.makeGauge(descriptor: Family.queueDepth.descriptor, labels: [("queue", $0)]) }
        queueDrops = Self.series(Queue.allCases) { registry.makeCounter(descriptor: Family.queueDropped.descriptor, labels: [("queue", $0)]) }
        flushDurations = Self.series(Queue.allCases) {
            registry.makeDurationHistogram(descriptor: Family.flushDuration.descriptor, labels: [("queue", $0)], buckets: Self.durationBuckets)
        }
        flushFailures = Self.series(Queue.allCases) {
            registry.makeCounter(descriptor: Family.flushFailures.descriptor, labels: [("queue", $0)])
        }
        claims = Dictionary(
            uniqueKeysWithValues: (AttributionConfidence.allCases.map(\.rawValue) + ["NONE"]).map {
                ($0, registry.makeCounter(descriptor: Family.claims.descriptor, labels: [("confidence", $0)]))
            })
        var shadows: [String: Counter] = [:]
        for confidence in [AttributionConfidence.default, .weak] {
            for same in [true, false] {
                shadows["\(confidence.rawValue)|\(same)"] = registry.makeCounter(
                    descriptor: Family.shadowMatches.descriptor,
                    labels: [("confidence", confidence.rawValue), ("outcome", same ? "same_click" : "other_click")])
            }
        }
        shadows["NONE|false"] = registry.makeCounter(
            descriptor: Family.shadowMatches.descriptor, labels: [("confidence", "NONE"), ("outcome", "none")])
        shadowMatches = shadows
        rateLimits = NIOLockedValueBox([:])
        storeErrors = NIOLockedValueBox([:])
        clickTrackingErrors = NIOLockedValueBox([:])
        pendingClicksOverCap = NIOLockedValueBox([:])
        cacheEntries = registry.makeGauge(descriptor: Family.linkCacheEntries.descriptor)
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
                // Two threads may both make it; the registry hands both the same series.
                registry.makeCounter(
                    descriptor: Family.requests.descriptor,
                    labels: [("kind", kind.rawValue), ("platform", platform?.metricsLabel ?? "none"), ("outcome", outcome.rawValue)]))
        counter.increment()
        durations[kind]?.record(duration)
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
        flushDurations[queue]?.record(duration)
        if failed { flushFailures[queue]?.increment() }
    }

    func setQueueDepth(_ queue: Queue, _ depth: Int) { queueDepths[queue]?.set(to: Double(depth)) }

    func setCacheEntries(_ count: Int) { cacheEntries.set(to: Double(count)) }

    /// A store call that failed: `operation` is what it was for (`lookup`, `api`, `flush`).
    func storeError(_ operation: String) {
        labelled(storeErrors, .storeErrors, "operation", operation).increment()
    }

    /// A request to a tracking upstream with no answer to pass on: `reason` is one of `ClickTrackingProxy.ErrorReason`.
    func clickTrackingError(_ reason: String) {
        labelled(clickTrackingErrors, .clickTrackingErrors, "reason", reason).increment()
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
        labelled(rateLimits, .rateLimited, "endpoint", endpoint).increment()
    }

    /// A click not kept for deferred links: its project holds its cap of pending clicks.
    func pendingClickOverCap(projectId: String) {
        labelled(pendingClicksOverCap, .pendingClicksOverCap, "project", projectId).increment()
    }

    /// Makes each project's series, at 0.
    func exposePendingClicksOverCap(projectIds: [String]) {
        for projectId in projectIds { _ = labelled(pendingClicksOverCap, .pendingClicksOverCap, "project", projectId) }
    }

    private func labelled(
        _ box: NIOLockedValueBox<[String: Counter]>, _ family: Family, _ dimension: String, _ value: String
    ) -> Counter {
        box.withLockedValue { counters in
            if let counter = counters[value] { return counter }
            let counter = registry.makeCounter(descriptor: family.descriptor, labels: [(dimension, value)])
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
