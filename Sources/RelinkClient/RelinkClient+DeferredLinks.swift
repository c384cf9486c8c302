import Foundation
import RelinkAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RelinkClient {
    /// What the app knows about itself and its device, for `claimDeferredLink`; `Relink` takes the signals alone.
    public struct DeviceInfo: Sendable, Equatable {
        /// Core's `AppPlatform`, the one app-platform type server and client share.
        public typealias Platform = AppPlatform

        public var platform: Platform
        /// The app's bundle ID (iOS) or package name (Android).
        public var bundleId: String
        /// The device's signals: OS version, model, screen, language, time zone, install time.
        public var signals: DeviceSignals

        /// Creates the value from its parts: `platform` and `bundleId` name the app, the others are `signals`'.
        public init(
            platform: Platform, bundleId: String, osVersion: String? = nil, deviceModelName: String? = nil, screenWidth: Int? = nil,
            screenHeight: Int? = nil, languageCode: String? = Locale.preferredLanguages.first,
            timeZone: String? = TimeZone.current.identifier, installedAt: Date? = nil
        ) {
            self.platform = platform
            self.bundleId = bundleId
            self.signals = DeviceSignals(
                osVersion: osVersion, deviceModelName: deviceModelName, screenWidth: screenWidth, screenHeight: screenHeight,
                languageCode: languageCode, timeZone: timeZone, installedAt: installedAt)
        }
    }

    /// A new install id: generate it once, on first launch, and keep it, so retries get the same answer.
    /// - Returns: a random UUID string.
    public static func newInstallID() -> String {
        UUID().uuidString
    }

    /// Whether a clipboard string is a Relink claim link (`…rc=<click id>&_icp=1`), so an app can check before it
    /// reads the clipboard for real (on iOS, `UIPasteboard.detectPatterns` avoids the paste prompt).
    /// - Parameter text: the clipboard's text.
    /// - Returns: true for an http(s) link ending in `rc=…&_icp=1`.
    public static func isClaimLink(_ text: String) -> Bool {
        text.hasSuffix("_icp=1") && text.contains("rc=") && AbsoluteURI(text)?.isHTTP == true
    }

    /// `POST /v1/installAttribution`: on first launch, the link the user clicked before installing, if any.
    /// Pass the clipboard's claim link (iOS, when the app reads it) or the Play install referrer (Android) for an
    /// exact (`UNIQUE`) match; without them the server matches on the device's signals.
    /// - Parameters:
    ///   - device: what the app knows of its device and itself.
    ///   - installId: from `newInstallID()`, kept across launches: a retry gets the first answer.
    ///   - clipboardLink: the clipboard's text, when the app read it; anything but a claim link is not sent.
    ///   - installReferrer: the Play Install Referrer API's referrer, on Android.
    /// - Returns: the deep link and how sure the match is, or no deep link with `matchMessage` saying why.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func claimDeferredLink(
        device: DeviceInfo, installId: String, clipboardLink: String? = nil, installReferrer: String? = nil
    ) async throws(RelinkClientError) -> InstallAttributionResponse {
        let request = InstallAttributionRequest(
            platform: device.platform, appId: device.bundleId, installId: installId, device: device.signals, clipboardLink: clipboardLink,
            installReferrer: installReferrer, sdkVersion: "relink-swift-1")
        return try await send("POST", path: APIPath.absolute(APIPath.installAttribution), body: request)
    }

    /// `POST /v1/reopenAttribution`: the deep link of a Relink link that opened the installed app (a universal
    /// link or App Link: short link, long link or route). With `installId` (the one passed to
    /// `claimDeferredLink`), the link's `APP_RE_OPEN` count takes each install once an hour.
    /// - Parameters:
    ///   - link: the URL that opened the app.
    ///   - bundleId: the app's bundle ID or package name (an Android app gets `al` when the link has one).
    ///   - installId: the app's install id.
    /// - Returns: the deep link, the long form of the link and its parameters.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func resolve(
        _ link: String, bundleId: String? = nil, installId: String? = nil
    ) async throws(RelinkClientError)
        -> ReopenAttributionResponse
    {
        try await send(
            "POST", path: APIPath.absolute(APIPath.reopenAttribution),
            body: ReopenAttributionRequest(requestedLink: link, bundleId: bundleId, sdkVersion: "relink-swift-1", installId: installId))
    }
}

extension InstallAttributionResponse {
    /// The answer in FDL's callback form, for apps that handled FDL's URLs:
    /// `<scheme>://google/link/?deep_link_id=…&match_type=unique|default|weak&…`, or
    /// `<scheme>://google/link/?dismiss=1&is_weak_match=1` without a match.
    /// - Parameter scheme: the app's URL scheme (FDL used the lowercased bundle ID).
    /// - Returns: the URL, or nil when `scheme` cannot make one.
    public func callbackURL(scheme: String) -> URL? {
        var components = URLComponents()
        components.scheme = scheme
        components.host = "google"
        components.path = "/link/"
        guard let deepLink, let confidence = attributionConfidence else {
            components.queryItems = [URLQueryItem(name: "dismiss", value: "1"), URLQueryItem(name: "is_weak_match", value: "1")]
            return components.url
        }
        var items = [URLQueryItem(name: "deep_link_id", value: deepLink), URLQueryItem(name: "match_type", value: confidence.matchType)]
        let optional: [(String, String?)] = [
            ("utm_source", utmSource), ("utm_medium", utmMedium), ("utm_campaign", utmCampaign), ("utm_term", utmTerm),
            ("utm_content", utmContent), ("imv", appMinimumVersion), ("match_message", matchMessage),
            ("request_ip_version", requestIpVersion),
        ]
        items += optional.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // Encoded by hand: URLComponents would leave `&`, `=` and `+` of the deep link unescaped.
        components.percentEncodedQueryItems = items.map { URLQueryItem(name: $0.name, value: $0.value.map(PercentEncoding.encodeComponent)) }
        return components.url
    }
}
