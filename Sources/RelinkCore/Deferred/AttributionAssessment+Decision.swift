extension AttributionAssessment {
    /// The decision in the matcher's terms.
    public var decision: AttributionMatcher.Decision {
        guard let click, let confidence else { return .none(message: message) }
        return .matched(id: click, confidence: confidence, message: message)
    }
}
