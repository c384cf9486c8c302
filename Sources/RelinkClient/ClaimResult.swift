import Foundation
import RelinkAPI

/// The answer to `Relink.claimDeferredLink`.
public enum ClaimResult: Sendable, Equatable {
    /// The link the user clicked before installing.
    case matched(DeferredLink)
    /// No click matched this install (an organic install); the server's reason.
    case organic(message: String)
    /// An earlier launch's claim was answered: nothing is asked again.
    case alreadyClaimed
    /// No answer this time; the next launch may try again, with the same install id.
    case failed(RelinkError)
}

/// A deferred deep link, as the server matched it to this install.
public struct DeferredLink: Sendable, Equatable {
    /// What the app opens.
    public var deepLink: String
    /// `UNIQUE` (exact: the install referrer or clipboard token), `DEFAULT` (confident) or `WEAK` (a guess: route
    /// generically, show nothing personal).
    public var confidence: AttributionConfidence
    public var utmSource: String?
    public var utmMedium: String?
    public var utmCampaign: String?
    public var utmContent: String?
    public var utmTerm: String?
    /// The link's minimum app version (`imv` on iOS, `amv` on Android).
    public var minimumAppVersion: String?
    /// The link as clicked.
    public var requestedLink: String?
    /// The server's words on the match.
    public var matchMessage: String
}

/// What the app knows of its device at first launch, for matching it to the click before the install.
public struct DeviceSignals: Sendable, Equatable {
    /// `UIDevice.current.systemVersion`, or the Android release.
    public var osVersion: String?
    /// `iPhone15,2` (`utsname.machine`), or `Build.MODEL`.
    public var deviceModelName: String?
    /// Screen size in points, as web pages see it.
    public var screenWidth: Int?
    public var screenHeight: Int?
    /// `Locale.preferredLanguages.first`, such as `en-US`.
    public var languageCode: String?
    /// An IANA time zone.
    public var timeZone: String?
    /// When the app was installed, if the app knows it without a required-reason API (see
    /// docs/integration-ios.md); nil rather than the launch time.
    public var installedAt: Date?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        osVersion: String? = nil, deviceModelName: String? = nil, screenWidth: Int? = nil, screenHeight: Int? = nil,
        languageCode: String? = Locale.preferredLanguages.first, timeZone: String? = TimeZone.current.identifier,
        installedAt: Date? = nil
    ) {
        self.osVersion = osVersion
        self.deviceModelName = deviceModelName
        self.screenWidth = screenWidth
        self.screenHeight = screenHeight
        self.languageCode = languageCode
        self.timeZone = timeZone
        self.installedAt = installedAt
    }
}

/// What a first launch brings to its claim.
public struct ClaimRequest: Sendable, Equatable {
    public var device: DeviceSignals
    /// The Play install referrer, on Android.
    public var installReferrer: String?
    /// The clipboard's text, only when the app opted in to reading it; sent only when it is a claim link.
    public var clipboardLink: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(device: DeviceSignals = DeviceSignals(), installReferrer: String? = nil, clipboardLink: String? = nil) {
        self.device = device
        self.installReferrer = installReferrer
        self.clipboardLink = clipboardLink
    }
}
