/// The platforms FDL's `linkStats` reports.
public enum StatsPlatform: String, Sendable, Codable, CaseIterable {
    case android = "ANDROID"
    case ios = "IOS"
    case desktop = "DESKTOP"
    case other = "OTHER"
    /// Relink's: link-preview crawlers and other bots, counted apart and left out of FDL's `linkStats`.
    case crawler = "CRAWLER"

    /// The platform a click from `platform` is counted under.
    /// - Parameter platform: the detected platform.
    public init(_ platform: Platform) {
        switch platform {
        case .iPhone, .iPad: self = .ios
        case .android: self = .android
        case .desktop: self = .desktop
        case .crawler: self = .crawler
        case .other: self = .other
        }
    }
}

/// The events FDL's `linkStats` reports.
public enum LinkEvent: String, Sendable, Codable, CaseIterable {
    /// A human request for the link, however it was answered.
    case click = "CLICK"
    /// A click sent on to a destination.
    case redirect = "REDIRECT"
    case appInstall = "APP_INSTALL"
    case appFirstOpen = "APP_FIRST_OPEN"
    case appReOpen = "APP_RE_OPEN"
}

/// `GET /v1/{shortLink}/linkStats?durationDays=N`.
public struct LinkStatsResponse: Codable, Sendable, Equatable {
    public struct EventStat: Codable, Sendable, Equatable {
        public var platform: StatsPlatform
        public var event: LinkEvent
        /// An int64 as a string, as FDL sent it.
        public var count: String

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(platform: StatsPlatform, event: LinkEvent, count: Int64) {
            self.platform = platform
            self.event = event
            self.count = String(count)
        }
    }

    public var linkEventStats: [EventStat]
    /// Relink's addition: how often fingerprint matching was right on the link's project over the same days, scored
    /// on claims settled by their token (see `AttributionEstimate`).
    public var attributionEstimate: AttributionEstimate?
    /// Relink's addition, for a link with A/B variants: the same counts per variant.
    public var variantEventStats: [VariantEventStat]?

    /// One variant's count of one event on one platform.
    public struct VariantEventStat: Codable, Sendable, Equatable {
        public var variant: String
        public var platform: StatsPlatform
        public var event: LinkEvent
        /// An int64 as a string, as `linkEventStats`.
        public var count: String

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(variant: String, platform: StatsPlatform, event: LinkEvent, count: Int64) {
            self.variant = variant
            self.platform = platform
            self.event = event
            self.count = String(count)
        }
    }

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(linkEventStats: [EventStat], attributionEstimate: AttributionEstimate? = nil, variantEventStats: [VariantEventStat]? = nil) {
        self.linkEventStats = linkEventStats
        self.attributionEstimate = attributionEstimate
        self.variantEventStats = variantEventStats
    }
}
