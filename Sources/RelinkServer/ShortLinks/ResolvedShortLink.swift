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
    /// The plans clicks made, under one lock (one allocation of it per cached link).
    private let plans = NIOLockedValueBox<[Platform: RedirectPlan]>([:])

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
        if let plan = plans.withLockedValue({ $0[client.platform] }) { return plan }
        let plan = RedirectPlanner.plan(link, project: project, client: DetectedClient(platform: client.platform))
        plans.withLockedValue { $0[client.platform] = plan }
        return plan
    }
}
