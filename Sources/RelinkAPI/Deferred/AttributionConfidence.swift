/// How sure a deferred-link match is, in FDL's terms.
public enum AttributionConfidence: String, Sendable, Codable, CaseIterable {
    /// From the click's own id (the clipboard token on iOS, the install referrer on Android): exact.
    case unique = "UNIQUE"
    /// Exactly one recent click agrees on address, OS, device and language (and screen and time zone when known).
    case `default` = "DEFAULT"
    /// A likely click, but others are possible: route generically, show nothing personal.
    case weak = "WEAK"

    /// The `match_type` of FDL's callback URL.
    public var matchType: String { rawValue.lowercased() }
}

extension AttributionConfidence: Comparable {
    /// `WEAK` < `DEFAULT` < `UNIQUE`.
    public static func < (lhs: AttributionConfidence, rhs: AttributionConfidence) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .weak: 0
        case .default: 1
        case .unique: 2
        }
    }
}
