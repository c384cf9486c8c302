/// The iOS app preview page: the app, the link's social card, and an Open button.
public struct AppPreview: Sendable, Equatable {
    public var appName: String
    public var bundleId: String
    public var title: String?
    public var description: String?
    public var imageURL: String?
    /// Where Open goes: the not-installed destination (`ifl`/`ipfl`, else the App Store, else `link`).
    public var openURL: String
    /// The plain "continue on the web" link: `link`.
    public var webURL: String
    public var platform: Platform
    /// Why the page is shown instead of a redirect.
    public var reason: String
    /// The link the Open button copies for the app to claim on first launch (`…?rc=<click id>&_icp=1`); nil when
    /// the project does not use the clipboard.
    public var claimURL: String?
}
