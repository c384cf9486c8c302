import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// A stored short link as clicks need it, worked out once per cache entry instead of once per click: the
/// project's defaults applied, the allowlist checked, and the plan for each platform kept as it is first made.
/// An edit replaces the whole entry, so nothing here outlives the record it came from.
final class ResolvedShortLink: Sendable {
    let record: ShortLinkRecord
    let link: ResolvedLink
    /// The link's rules, then its project's (its variants, else the project's); nil when there are none, so a
    /// plain link keeps its plans per platform.
    let rules: RuleEvaluator.Compiled?
    /// What clicks learn about the link, under one lock (one allocation of it per cached link).
    private struct State {
        var plans: [Platform: RedirectPlan] = [:]
        var clicks: Clicks = (0, nil, 0)
    }

    /// For a link with a click limit: its human clicks as last read from the store (with this instance's unwritten
    /// ones), when, and the clicks this instance counted since.
    typealias Clicks = (read: Int64, at: ContinuousClock.Instant?, since: Int64)

    private let state = NIOLockedValueBox(State())

    /// Reads or changes the link's click count under its lock.
    func withClicks<T>(_ body: (inout Clicks) -> T) -> T {
        state.withLockedValue { body(&$0.clicks) }
    }

    init(record: ShortLinkRecord, project: Project, prefix: DomainURIPrefix) {
        self.record = record
        self.link = ResolvedLink(
            kind: .shortLink(record.code), url: prefix.url(path: "/\(record.code)"), ownParameters: record.parameters,
            parameters: project.applyingDefaults(to: record.parameters, fillingApps: false, preview: record.preview))
        let own = record.rules ?? LinkRules()
        let combined = LinkRules(rules: own.rules + project.rules.rules, variants: own.variants.isEmpty ? project.rules.variants : own.variants)
        self.rules = combined.isEmpty ? nil : RuleEvaluator.Compiled(combined)
    }

    /// The plan for a plain click from `client` (no in-app browser, not HEAD, not `d=1`), made once per platform.
    func plan(for client: DetectedClient, project: Project) -> RedirectPlan {
        guard client.inAppBrowser == nil else { return RedirectPlanner.plan(link, project: project, client: client) }
        if let plan = state.withLockedValue({ $0.plans[client.platform] }) { return plan }
        let plan = RedirectPlanner.plan(link, project: project, client: DetectedClient(platform: client.platform))
        state.withLockedValue { $0.plans[client.platform] = plan }
        return plan
    }
}
