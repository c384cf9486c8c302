import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkCore
import RelinkStore
import ServiceLifecycle

/// Fills short links' crawler cards from their destination pages, never on the click path: a link minted with
/// `fetchPreview` (or in a project with `socialPreview.fetch`) is queued, fetched by `SafeFetcher`, read by
/// `PagePreviewReader` and stored; stored previews older than the project's `refreshHours` are fetched again, and
/// `relink links refresh-preview` fetches one at once.
final class PreviewService: Service, Sendable {
    /// Links waiting to be fetched, at most; past it a link waits for the next refresh pass.
    static let queueCapacity = 10_000
    /// Pages fetched at once.
    static let concurrency = 4
    /// Links looked at per refresh pass.
    static let refreshBatch = 1000
    /// On-demand refreshes (`refreshPreview`) running at once, across every key: past it the API answers 429,
    /// so the endpoint cannot be used to make the server hammer a site.
    static let maximumOnDemand = 4

    let store: any RelinkStore
    let configuration: RelinkConfiguration
    let fetcher: SafeFetcher
    let cache: LinkCache
    let refreshInterval: Duration
    let logger: Logger
    private let queued = NIOLockedValueBox<Set<String>>([])
    private let onDemand = NIOLockedValueBox(0)
    private let stream: AsyncStream<LinkKey>
    private let continuation: AsyncStream<LinkKey>.Continuation

    struct LinkKey: Sendable, Hashable {
        var domain: String
        var code: String
        var text: String { "\(domain)\t\(code)" }
    }

    init(
        store: any RelinkStore, configuration: RelinkConfiguration, fetcher: SafeFetcher, cache: LinkCache, refreshInterval: Duration,
        logger: Logger
    ) {
        self.store = store
        self.configuration = configuration
        self.fetcher = fetcher
        self.cache = cache
        self.refreshInterval = refreshInterval
        self.logger = logger
        (stream, continuation) = AsyncStream.makeStream(of: LinkKey.self, bufferingPolicy: .bufferingOldest(Self.queueCapacity))
    }

    /// Whether `record`'s card comes from its page.
    func fetches(_ record: ShortLinkRecord) -> Bool {
        record.fetchPreview || configuration.project(id: record.projectId)?.socialPreview.fetch == true
    }

    /// Queues `record` for a fetch, unless it is queued already or the queue is full (then the next refresh pass
    /// finds it). Returns at once.
    func enqueue(_ record: ShortLinkRecord) {
        let key = LinkKey(domain: record.domain, code: record.code)
        let added = queued.withLockedValue { queued in
            guard queued.count < Self.queueCapacity else { return false }
            return queued.insert(key.text).inserted
        }
        guard added else { return }
        if case .dropped = continuation.yield(key) { _ = queued.withLockedValue { $0.remove(key.text) } }
    }

    /// Fetches `record`'s page now and stores what it says (or why it said nothing, keeping the last card).
    @discardableResult
    func refresh(_ record: ShortLinkRecord) async throws -> PagePreview {
        let preview = await read(record)
        try await store.savePreview(linkId: record.id, preview: preview)
        cache.invalidate(domain: record.domain, code: record.code)
        if let failure = preview.failure {
            logger.info("preview of \(record.shortLink) not fetched: \(failure)")
        }
        return preview
    }

    /// `refresh`, for the API: at most `maximumOnDemand` at once.
    func refreshOnDemand(_ record: ShortLinkRecord) async throws -> PagePreview {
        let admitted = onDemand.withLockedValue { running in
            guard running < Self.maximumOnDemand else { return false }
            running += 1
            return true
        }
        guard admitted else { throw APIError.rateLimited(retryAfter: 2, limiting: "preview refreshes on this server") }
        defer { onDemand.withLockedValue { $0 -= 1 } }
        return try await refresh(record)
    }

    /// The preview `record`'s page gives now.
    func read(_ record: ShortLinkRecord) async -> PagePreview {
        let now = Date()
        func failed(_ reason: String) -> PagePreview {
            var kept = record.preview ?? PagePreview(fetchedAt: now)
            kept.fetchedAt = now
            kept.failure = reason
            return kept
        }
        guard let project = configuration.project(id: record.projectId) else { return failed("the link's project is gone") }
        guard let link = record.parameters.link else { return failed("the link has no deep link") }
        let check: @Sendable (String) -> String? = { url in
            guard let uri = AbsoluteURI(url), uri.isHTTP else { return "'\(url.leadingScalars(200))' is not an http(s) URL" }
            if let domain = project.domains.first(where: { uri.isUnder($0) }) {
                return "'\(url.leadingScalars(200))' is a link of the project's own domain \(domain)"
            }
            return project.allowlist.allows(uri, projectDomains: project.domains)
                ? nil : "'\(url.leadingScalars(200))' is not on the project's allowlist"
        }
        let page: SafeFetcher.Page
        do {
            page = try await fetcher.fetchHTML(link, check: check)
        } catch {
            return failed(error.description)
        }
        let charset = HTMLDocument.charset(ofContentType: page.contentType)
        guard
            let document = (try? HTMLDocument(parsing: page.body.readableBytesView, encoding: charset))
                ?? (try? HTMLDocument(parsing: page.body.readableBytesView))
        else { return failed("the page could not be parsed") }
        let preview = PagePreviewReader.preview(of: document, url: page.url, fetchedAt: now)
        return preview.isEmpty ? failed("the page has no title, description or image") : preview
    }

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.refreshPeriodically() }
                var running = 0
                for await key in self.stream {
                    if running >= Self.concurrency {
                        await group.next()
                        running -= 1
                    }
                    running += 1
                    group.addTask { await self.process(key) }
                }
                group.cancelAll()
            }
        }
    }

    private func process(_ key: LinkKey) async {
        _ = queued.withLockedValue { $0.remove(key.text) }
        do {
            guard let record = try await store.link(domain: key.domain, code: key.code), fetches(record), record.isActive(at: Date())
            else { return }
            try await refresh(record)
        } catch {
            logger.warning("preview of \(key.domain)/\(key.code) not stored: \(error)")
        }
    }

    /// Queues the links whose preview is due, every `refreshInterval`, starting at once (links minted while the
    /// server was down, or past a full queue, are found here).
    private func refreshPeriodically() async {
        while !Task.isCancelled {
            // A full batch means more are due (a project that just turned fetching on): come back soon.
            let found = await queueDueLinks()
            try? await Task.sleep(for: found >= Self.refreshBatch ? min(refreshInterval, .seconds(30)) : refreshInterval)
        }
    }

    /// Queues the links due now; how many the store listed.
    @discardableResult
    func queueDueLinks(now: Date = Date()) async -> Int {
        let fetchAll = configuration.projects.filter(\.socialPreview.fetch).map(\.id)
        let shortest = configuration.projects.map(\.socialPreview.refreshHours).min() ?? SocialPreviewSettings.default.refreshHours
        do {
            let due = try await store.linksDueForPreview(
                projectIds: fetchAll, fetchedBefore: now - TimeInterval(shortest * 3600), limit: Self.refreshBatch)
            for record in due {
                let hours = configuration.project(id: record.projectId)?.socialPreview.refreshHours ?? shortest
                if let fetched = record.preview?.fetchedAt, now.timeIntervalSince(fetched) < TimeInterval(hours * 3600) { continue }
                enqueue(record)
            }
            return due.count
        } catch {
            logger.warning("links due for a preview could not be listed: \(error)")
            return 0
        }
    }
}
