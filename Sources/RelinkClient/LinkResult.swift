/// The answer to `Relink.reopen` and `Relink.resolve`.
public enum LinkResult: Sendable, Equatable {
    case resolved(AppLink)
    case failed(RelinkError)
}

/// A Relink link (short link, long link or route) resolved for the installed app.
public struct AppLink: Sendable, Equatable {
    /// What the app opens.
    public var deepLink: String
    /// The link's long form.
    public var resolvedLink: String
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmContent: String?
    public var utmTerm: String?
    /// The link's minimum app version (`imv`).
    public var minimumAppVersion: String?
    /// A route's path parameters, decoded (`/p/{id}` opened as `/p/42` gives `id` = `42`); empty otherwise.
    public var routeParameters: [String: String]
}
