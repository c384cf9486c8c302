import Foundation

/// A JSON value that FDL's SDKs sent as a number or a string, read either way.
public struct FlexibleValue: Codable, Sendable, Equatable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral {
    public var text: String

    public init(stringLiteral value: String) { text = value }
    public init(integerLiteral value: Int) { text = String(value) }
    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(_ text: String) { self.text = text }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let string = try? container.decode(String.self) {
            text = string
        } else if let integer = try? container.decode(Int64.self) {
            text = String(integer)
        } else if let double = try? container.decode(Double.self) {
            text = String(double)
        } else if let bool = try? container.decode(Bool.self) {
            text = String(bool)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a string or a number")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }

    public var int: Int? { Int(text) ?? Double(text).flatMap { $0.isFinite ? Int(exactly: $0.rounded()) : nil } }
}

/// `POST /v1/installAttribution`: FDL's fields plus Relink's (`platform`, `installReferrer`, `installId`).
public struct InstallAttributionRequest: Codable, Sendable, Equatable {
    public struct Device: Codable, Sendable, Equatable {
        public var screenResolutionHeight: FlexibleValue?
        public var screenResolutionWidth: FlexibleValue?
        public var languageCode: String?
        public var languageCodeRaw: String?
        /// `navigator.language` as a webview in the app sees it: compares best with the browser's.
        public var languageCodeFromWebview: String?
        public var timezone: String?
        /// `iPhone15,2` on iOS; `Build.MODEL` on Android.
        public var deviceModelName: String?

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(
            screenResolutionHeight: FlexibleValue? = nil, screenResolutionWidth: FlexibleValue? = nil, languageCode: String? = nil,
            languageCodeRaw: String? = nil, languageCodeFromWebview: String? = nil, timezone: String? = nil,
            deviceModelName: String? = nil
        ) {
            self.screenResolutionHeight = screenResolutionHeight
            self.screenResolutionWidth = screenResolutionWidth
            self.languageCode = languageCode
            self.languageCodeRaw = languageCodeRaw
            self.languageCodeFromWebview = languageCodeFromWebview
            self.timezone = timezone
            self.deviceModelName = deviceModelName
        }
    }

    /// The app's bundle ID (iOS) or package name (Android).
    public var bundleId: String?
    public var iosVersion: String?
    public var sdkVersion: String?
    /// When the app was installed, epoch seconds (milliseconds are read too): the delay from a click to it is
    /// evidence. Send the real install time (the app's first-install time), not the claim's.
    public var appInstallationTime: FlexibleValue?
    /// The clipboard's claim link (`…?rc=<click id>&_icp=1`), when the app read it.
    public var uniqueMatchLinkToCheck: String?
    public var device: Device?
    /// `IMPLICIT_WEAK_MATCH`, `EXPLICIT_WEAK_MATCH`, `EXPLICIT_STRONG_AFTER_WEAK_MATCH`, or their numbers.
    public var retrievalMethod: FlexibleValue?
    public var visualStyle: FlexibleValue?
    /// Relink's: `IOS` or `ANDROID` (iOS when absent, as FDL's REST API was iOS-only).
    public var platform: String?
    /// Relink's: the Play install referrer, as the Install Referrer API gives it (`relink_click=…&utm_source=…`).
    public var installReferrer: String?
    /// Relink's: generated once per install by the client, so a retry gets the same answer.
    public var installId: String?
    /// Relink's: the Android release (`Build.VERSION.RELEASE`); `iosVersion` on iOS.
    public var osVersion: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        bundleId: String? = nil, iosVersion: String? = nil, sdkVersion: String? = nil, appInstallationTime: FlexibleValue? = nil,
        uniqueMatchLinkToCheck: String? = nil, device: Device? = nil, platform: String? = nil, installReferrer: String? = nil,
        installId: String? = nil, osVersion: String? = nil
    ) {
        self.bundleId = bundleId
        self.iosVersion = iosVersion
        self.sdkVersion = sdkVersion
        self.appInstallationTime = appInstallationTime
        self.uniqueMatchLinkToCheck = uniqueMatchLinkToCheck
        self.device = device
        self.platform = platform
        self.installReferrer = installReferrer
        self.installId = installId
        self.osVersion = osVersion
    }
}

/// FDL's answer to a claim. Without a match, `deepLink` and `attributionConfidence` are absent and
/// `matchMessage` says why.
public struct InstallAttributionResponse: Codable, Sendable, Equatable {
    public var deepLink: String?
    public var attributionConfidence: AttributionConfidence?
    public var matchMessage: String
    /// The link as clicked.
    public var requestedLink: String?
    /// Its long form.
    public var resolvedLink: String?
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmContent: String?
    public var utmTerm: String?
    /// `imv` on iOS, `amv` on Android.
    public var appMinimumVersion: String?
    public var requestIpVersion: String?
    /// Where the click went when the app was not installed.
    public var fallbackLink: String?
    public var invitationId: String
    public var isStrongMatchExecutable: Bool
    /// Relink's, only for a project with `deferred.debug` on: why this answer (absent otherwise).
    public var debug: AttributionDebug?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        deepLink: String? = nil, attributionConfidence: AttributionConfidence? = nil, matchMessage: String,
        requestedLink: String? = nil, resolvedLink: String? = nil, utmSource: String? = nil, utmMedium: String? = nil,
        utmCampaign: String? = nil, utmContent: String? = nil, utmTerm: String? = nil, appMinimumVersion: String? = nil,
        requestIpVersion: String? = nil, fallbackLink: String? = nil
    ) {
        self.deepLink = deepLink
        self.attributionConfidence = attributionConfidence
        self.matchMessage = matchMessage
        self.requestedLink = requestedLink
        self.resolvedLink = resolvedLink
        self.utmSource = utmSource
        self.utmMedium = utmMedium
        self.utmCampaign = utmCampaign
        self.utmContent = utmContent
        self.utmTerm = utmTerm
        self.appMinimumVersion = appMinimumVersion
        self.requestIpVersion = requestIpVersion
        self.fallbackLink = fallbackLink
        self.invitationId = ""
        self.isStrongMatchExecutable = false
    }
}

extension InstallAttributionRequest {
    /// `appInstallationTime` as a date: epoch seconds, or milliseconds when it is too large for seconds (some SDKs
    /// sent those); nil when absent, not a number, or before 2001.
    public var installedAt: Date? {
        guard let value = appInstallationTime?.int, value > 0 else { return nil }
        let seconds = value > 100_000_000_000 ? Double(value) / 1000 : Double(value)
        guard seconds >= Date.timeIntervalBetween1970AndReferenceDate, seconds < 100_000_000_000 else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }
}

/// `POST /v1/reopenAttribution`: a link opened inside the installed app. FDL's iOS SDK sent snake case.
public struct ReopenAttributionRequest: Codable, Sendable, Equatable {
    public var requestedLink: String?
    public var bundleId: String?
    public var sdkVersion: String?
    /// The app install's own id (Relink's addition): a re-open is counted once per install, link and hour.
    public var installId: String?
    /// Relink's addition: `false` resolves the link without counting `APP_RE_OPEN` (the app looks a link up, such
    /// as one shown in its content, rather than being opened by it). Absent means true, as FDL's SDKs sent it.
    public var countAsReopen: Bool?

    enum CodingKeys: String, CodingKey {
        case requestedLink, bundleId, sdkVersion, installId, countAsReopen
        case bundle_id, sdk_version
    }

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        requestedLink: String?, bundleId: String? = nil, sdkVersion: String? = nil, installId: String? = nil, countAsReopen: Bool? = nil
    ) {
        self.requestedLink = requestedLink
        self.bundleId = bundleId
        self.sdkVersion = sdkVersion
        self.installId = installId
        self.countAsReopen = countAsReopen
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestedLink = try container.decodeIfPresent(String.self, forKey: .requestedLink)
        bundleId = try container.decodeIfPresent(String.self, forKey: .bundleId) ?? container.decodeIfPresent(String.self, forKey: .bundle_id)
        sdkVersion = try container.decodeIfPresent(String.self, forKey: .sdkVersion) ?? container.decodeIfPresent(String.self, forKey: .sdk_version)
        installId = try container.decodeIfPresent(String.self, forKey: .installId)
        countAsReopen = try container.decodeIfPresent(Bool.self, forKey: .countAsReopen)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(requestedLink, forKey: .requestedLink)
        try container.encodeIfPresent(bundleId, forKey: .bundleId)
        try container.encodeIfPresent(sdkVersion, forKey: .sdkVersion)
        try container.encodeIfPresent(installId, forKey: .installId)
        try container.encodeIfPresent(countAsReopen, forKey: .countAsReopen)
    }
}

public struct ReopenAttributionResponse: Codable, Sendable, Equatable {
    public var deepLink: String
    public var invitationId: String
    public var iosMinAppVersion: String?
    public var resolvedLink: String
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmContent: String?
    public var utmTerm: String?
    /// Relink's addition, for a route (`/p/{id}`): its path parameters, decoded (`{"id": "42"}`); absent otherwise.
    public var routeParameters: [String: String]?

    /// The answer for a link opened in the app.
    /// - Parameters:
    ///   - deepLink: what the app opens.
    ///   - resolvedLink: the long form of the link.
    ///   - parameters: its parameters, whose utm values and minimum version the answer carries.
    ///   - routeParameters: a route's path parameters.
    public init(deepLink: String, resolvedLink: String, parameters: LinkParameters, routeParameters: [String: String]? = nil) {
        self.routeParameters = routeParameters
        self.deepLink = deepLink
        self.invitationId = ""
        self.iosMinAppVersion = parameters.imv
        self.resolvedLink = resolvedLink
        self.utmSource = parameters.utmSource
        self.utmMedium = parameters.utmMedium
        self.utmCampaign = parameters.utmCampaign
        self.utmContent = parameters.utmContent
        self.utmTerm = parameters.utmTerm
    }
}
