/// One project of routes.json: the apps, domains, allowlist and defaults its links share.
public struct Project: Hashable, Sendable, Identifiable {
    public var id: String
    /// The URI prefixes its links live under; each host belongs to one project.
    public var domains: [DomainURIPrefix]
    public var ios: [IOSApp]
    public var android: [AndroidApp]
    public var allowlist: Allowlist
    public var defaults: ProjectDefaults
    public var routes: [PathRoute]
    public var deferred: DeferredLinkSettings
    /// Per API key, for minting.
    public var rateLimit: RateLimit
    /// Whether short links' crawler cards are filled from their destination pages.
    public var socialPreview: SocialPreviewSettings
    /// Rules and variants for the project's short links, after (rules) or instead of (variants) each link's own.
    public var rules: LinkRules
    /// Email services' click-tracking domains Relink hosts for the project (docs/email.md).
    public var clickTracking: [ClickTrackingHost]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        id: String, domains: [DomainURIPrefix], ios: [IOSApp] = [], android: [AndroidApp] = [],
        allowlist: Allowlist = Allowlist(), defaults: ProjectDefaults = ProjectDefaults(), routes: [PathRoute] = [],
        deferred: DeferredLinkSettings = .default, rateLimit: RateLimit = .default, socialPreview: SocialPreviewSettings = .default,
        rules: LinkRules = LinkRules(), clickTracking: [ClickTrackingHost] = []
    ) {
        self.id = id
        self.domains = domains
        self.ios = ios
        self.android = android
        self.allowlist = allowlist
        self.defaults = defaults
        self.routes = routes
        self.deferred = deferred
        self.rateLimit = rateLimit
        self.socialPreview = socialPreview
        self.rules = rules
        self.clickTracking = clickTracking
    }
}
