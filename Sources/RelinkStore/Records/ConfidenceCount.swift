import RelinkCore

/// How many installs one day were matched to their click with one confidence.
public struct ConfidenceCount: Hashable, Sendable {
    /// Days since 1970-01-01, UTC.
    public var day: Int
    public var confidence: AttributionConfidence
    public var count: Int64

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(day: Int, confidence: AttributionConfidence, count: Int64) {
        self.day = day
        self.confidence = confidence
        self.count = count
    }
}
