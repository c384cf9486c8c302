/// How a project matches installs to the clicks before them.
public struct DeferredLinkSettings: Hashable, Sendable {
    /// How old a click may be for a fingerprint (`DEFAULT`) match.
    public var fingerprintWindowMinutes: Int
    /// How long a click can be claimed with its token or install referrer; clicks are purged after this.
    public var tokenWindowHours: Int
    /// Whether the iOS preview page copies a claim link to the clipboard (iOS 16+ asks the user before an app reads it).
    public var clipboard: Bool
    /// The least confidence a claim is answered with a link at: `WEAK` (FDL's behaviour, the default), or
    /// `DEFAULT` for links that carry secrets (invitations, sign-in links), so that a guess never hands them out.
    public var minimumConfidence: AttributionConfidence
    /// Claims are answered with `debug`: the install's signals and every candidate click's evidence (named by rank,
    /// never by id). For testing on devices: it tells a claiming device about other people's recent clicks from its
    /// network, so it is off by default and the server warns at start when it is on.
    public var debug: Bool
    /// How many recent clicks from the install's address and network a fingerprint claim reads.
    public var candidateBounds: CandidateBounds
    /// The most pending clicks the project holds, so that clicks from many networks together cannot fill the disk
    /// (each network has its own budget); past it new clicks redirect without being kept until older ones age out.
    public var maxPendingClicks: Int

    /// What `maxPendingClicks` may be set to, and its default: about 13 GB with the rows' indexes.
    public static let allowedPendingClicks = 1_000...1_000_000_000
    public static let defaultMaxPendingClicks = 10_000_000

    public static let `default` = DeferredLinkSettings(fingerprintWindowMinutes: 120, tokenWindowHours: 24, clipboard: false)

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        fingerprintWindowMinutes: Int, tokenWindowHours: Int, clipboard: Bool, minimumConfidence: AttributionConfidence = .weak,
        debug: Bool = false, candidateBounds: CandidateBounds = .default, maxPendingClicks: Int = Self.defaultMaxPendingClicks
    ) {
        self.fingerprintWindowMinutes = fingerprintWindowMinutes
        self.tokenWindowHours = tokenWindowHours
        self.clipboard = clipboard
        self.minimumConfidence = minimumConfidence
        self.debug = debug
        self.candidateBounds = candidateBounds
        self.maxPendingClicks = maxPendingClicks
    }
}
