/// What a project's links use when they do not say otherwise.
public struct ProjectDefaults: Hashable, Sendable {
    /// `st` when a link has none.
    public var socialTitle: String?
    /// `sd` when a link has none.
    public var socialDescription: String?
    /// `si` when a link has none.
    public var socialImageLink: String?
    /// Where desktop and other platforms go when a link has no `ofl` (instead of `link`).
    public var desktopFallbackLink: String?
    /// Skip the iOS preview page for links that do not set `efr` themselves, as if they had `efr=1`.
    public var forcedRedirect: Bool

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        socialTitle: String? = nil, socialDescription: String? = nil, socialImageLink: String? = nil,
        desktopFallbackLink: String? = nil, forcedRedirect: Bool = false
    ) {
        self.socialTitle = socialTitle
        self.socialDescription = socialDescription
        self.socialImageLink = socialImageLink
        self.desktopFallbackLink = desktopFallbackLink
        self.forcedRedirect = forcedRedirect
    }
}
