import Foundation
import RelinkCore

/// A click that may lead to an install, kept until an install claims it or it ages out.
public struct PendingClick: Sendable, Equatable {
    /// 128 random bits, base 62: what the clipboard claim link and the Play referrer carry.
    public var id: String
    public var projectId: String
    /// `.ios` or `.android`.
    public var platform: AppPlatform
    /// The short link clicked, when it was one (its statistics get the install).
    public var linkId: Int64?
    /// The app the click was sent to install: its bundle ID (`ibi`, or `ipbi` on an iPad) or package name (`apn`).
    /// Only claims from that app can match the click; nil for clicks kept before Relink recorded it.
    public var appId: String?
    /// The link as clicked: resolved again when the click is claimed (so a short link edited meanwhile hands the
    /// install its new destination), which keeps each click's row small and cheap to write.
    public var requestedLink: String
    public var createdAt: Date
    public var fingerprint: DeviceFingerprint
    public var claimedAt: Date?
    public var confidence: AttributionConfidence?
    /// The A/B variant the click was given: its claim answers that variant's link, and its install counts for it.
    public var variant: String?

    /// Links up to this many UTF-8 bytes are kept in the click's own row; longer ones once per project and link
    /// (`ClickedLink`), and the server limits how fast one client network may leave clicks on them.
    public static let inlineLinkLength = 512

    /// Claimed, but only as a `WEAK` match: a `DEFAULT` or `UNIQUE` claim may still take it.
    public var isWeaklyClaimed: Bool { claimedAt != nil && confidence == .weak }

    public init(
        id: String, projectId: String, platform: AppPlatform, linkId: Int64?, appId: String? = nil, requestedLink: String,
        createdAt: Date, fingerprint: DeviceFingerprint, claimedAt: Date? = nil, confidence: AttributionConfidence? = nil,
        variant: String? = nil
    ) {
        self.variant = variant
        self.id = id
        self.projectId = projectId
        self.platform = platform
        self.linkId = linkId
        self.appId = appId
        self.requestedLink = requestedLink
        self.createdAt = createdAt
        self.fingerprint = fingerprint
        self.claimedAt = claimedAt
        self.confidence = confidence
    }
}

/// What an install was answered, kept so that the same install retrying gets the same answer.
public struct InstallClaim: Sendable, Equatable {
    public var projectId: String
    public var installId: String
    /// The answer as JSON, exactly as it was sent.
    public var response: String
    public var createdAt: Date

    public init(projectId: String, installId: String, response: String, createdAt: Date) {
        self.projectId = projectId
        self.installId = installId
        self.response = response
        self.createdAt = createdAt
    }
}

/// How an atomic claim ended.
public enum ClaimOutcome: Sendable, Equatable {
    /// The click is this install's now (and the answer is kept for its retries); nobody had claimed it.
    case claimed
    /// The click is this install's now, taken back from a `WEAK` claim (which counted the install and sent its
    /// events).
    case takenBack
    /// This install was answered before: here is that answer.
    case answeredBefore(InstallClaim)
    /// Another install claimed the click first.
    case clickTaken
}
