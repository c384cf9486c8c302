/// What a User-Agent says about the client behind a click.
public struct DetectedClient: Hashable, Sendable {
    public var platform: Platform
    /// The OS version as dotted numbers (`17.2`, `14`), when the User-Agent gives one.
    public var osVersion: String?
    /// The device model an Android User-Agent names (`Pixel 7`), or `iPhone`/`iPad`.
    public var deviceModel: String?
    /// The app whose in-app browser this is (`Facebook`, `Instagram`, `LINE`, …); these ignore universal links.
    public var inAppBrowser: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(platform: Platform, osVersion: String? = nil, deviceModel: String? = nil, inAppBrowser: String? = nil) {
        self.platform = platform
        self.osVersion = osVersion
        self.deviceModel = deviceModel
        self.inAppBrowser = inAppBrowser
    }
}
