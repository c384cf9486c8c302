/// `GET /v1/{shortLink}/deferredClicks`: a short link's clicks kept for deferred linking, newest first, and whether
/// an install claimed each. For testing deferred links (`relink deferred test`); it names no click id and no
/// address.
public struct DeferredClicksResponse: Codable, Sendable, Equatable {
    /// One kept click.
    public struct Click: Codable, Sendable, Equatable {
        /// A short handle that tells this click from the others across listings; derived from the click's id by a
        /// one-way hash, so it cannot claim the click.
        public var ref: String
        /// `IOS` or `ANDROID`.
        public var platform: AppPlatform
        /// RFC 3339.
        public var clickedAt: String
        public var osVersion: String?
        /// `iphone`, `ipad`, or the Android model.
        public var device: String?
        public var languages: [String]
        /// Measured by the preview page's script (iOS), when it ran.
        public var screen: String?
        public var timeZone: String?
        /// RFC 3339, when an install claimed it.
        public var claimedAt: String?
        /// How sure that claim was: `UNIQUE`, `DEFAULT` or `WEAK` (a `WEAK` claim may still be taken by a surer one).
        public var confidence: AttributionConfidence?

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(
            ref: String, platform: AppPlatform, clickedAt: String, osVersion: String?, device: String?, languages: [String], screen: String?,
            timeZone: String?, claimedAt: String?, confidence: AttributionConfidence?
        ) {
            self.ref = ref
            self.platform = platform
            self.clickedAt = clickedAt
            self.osVersion = osVersion
            self.device = device
            self.languages = languages
            self.screen = screen
            self.timeZone = timeZone
            self.claimedAt = claimedAt
            self.confidence = confidence
        }
    }

    public var clicks: [Click]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(clicks: [Click]) { self.clicks = clicks }
}
