import Foundation
import RelinkCore

/// Live precision: when a claim is settled by its token (UNIQUE), the fingerprint matcher is also asked, as if there
/// were no token, and whether it would have picked the same click is counted per project, day and confidence.
public struct ShadowMatchCount: Sendable, Equatable, Hashable {
    /// What the fingerprint matcher would have answered; nil for no match.
    public var confidence: AttributionConfidence?
    /// It named the click the token did.
    public var sameClick: Bool
    public var count: Int64

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(confidence: AttributionConfidence?, sameClick: Bool, count: Int64) {
        self.confidence = confidence
        self.sameClick = sameClick
        self.count = count
    }

    /// Scores are kept for 400 days (at most five rows a project and day), then purged with the project's old clicks.
    static let keptDays = 400

    static func oldestKeptDay(now: Date) -> Int { EventCounterKey.day(of: now) - keptDays }

    /// The stored form of `confidence`: the confidence's name, or `NONE`.
    static func label(_ confidence: AttributionConfidence?) -> String { confidence?.rawValue ?? "NONE" }

    static func confidence(label: String) -> AttributionConfidence? { AttributionConfidence(rawValue: label) }
}
