/// An iOS app of a project, as listed in routes.json.
public struct IOSApp: Hashable, Sendable {
    /// Display name, shown on the app preview page.
    public var name: String?
    public var bundleId: String
    /// The Apple Developer team ID: 10 characters A-Z0-9.
    public var teamId: String
    /// The numeric App Store ID (`isi`).
    public var appStoreId: String?
    /// The app's custom URL scheme (`ius`); the lowercased bundle ID when absent.
    public var customScheme: String?
    /// A separate iPad app's bundle ID (`ipbi`).
    public var iPadBundleId: String?
    /// The bundle ID of the app's App Clip, listed under `appclips` in the association file.
    public var appClipBundleId: String?
    /// Whether the app uses the domain for shared web credentials (`webcredentials` in the association file).
    public var webCredentials: Bool

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        name: String? = nil, bundleId: String, teamId: String, appStoreId: String? = nil, customScheme: String? = nil,
        iPadBundleId: String? = nil, appClipBundleId: String? = nil, webCredentials: Bool = false
    ) {
        self.name = name
        self.bundleId = bundleId
        self.teamId = teamId
        self.appStoreId = appStoreId
        self.customScheme = customScheme
        self.iPadBundleId = iPadBundleId
        self.appClipBundleId = appClipBundleId
        self.webCredentials = webCredentials
    }

    /// `TEAMID.bundle.id`, as Apple's association file names the app.
    public var appID: String { "\(teamId).\(bundleId)" }
}
