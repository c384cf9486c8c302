/// How often fingerprint matching is right on a project's real traffic. Whenever a claim is settled by its token
/// (UNIQUE), the fingerprint matcher is asked too, as if there were no token; since the token names the right click,
/// its answer can be scored. Relink's addition to `linkStats` (`attributionEstimate`), and `relink stats --attribution`.
///
/// Installs with a token are not quite those without (Android's install referrer arrives more often than iOS's
/// clipboard), so read it as an estimate of the matcher on traffic like yours, not an exact figure.
public struct AttributionEstimate: Codable, Sendable, Equatable {
    /// One confidence's shadow answers.
    public struct Level: Codable, Sendable, Equatable {
        /// Claims the matcher would have answered with this confidence.
        public var answered: Int64
        /// Those naming the click the token named.
        public var right: Int64
        /// `right / answered`; nil before any answer.
        public var precision: Double?
        /// `right` over all scored claims: the share of installs this confidence would have found.
        public var recall: Double?

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(answered: Int64, right: Int64, precision: Double?, recall: Double?) {
            self.answered = answered
            self.right = right
            self.precision = precision
            self.recall = recall
        }
    }

    /// The days counted, up to today.
    public var days: Int
    /// Claims settled by their token, and so scored.
    public var scoredClaims: Int64
    public var `default`: Level
    public var weak: Level
    /// Claims the matcher would have left without a match.
    public var unmatched: Int64

    /// Sums shadow decisions: each with the confidence the matcher would have given (nil: none), whether it named
    /// the token's click, and how many.
    public init(days: Int, decisions: [(confidence: AttributionConfidence?, sameClick: Bool, count: Int64)]) {
        self.days = days
        let total = decisions.reduce(0) { $0 + $1.count }
        scoredClaims = total
        func level(_ confidence: AttributionConfidence) -> Level {
            let answered = decisions.filter { $0.confidence == confidence }.reduce(0) { $0 + $1.count }
            let right = decisions.filter { $0.confidence == confidence && $0.sameClick }.reduce(0) { $0 + $1.count }
            return Level(
                answered: answered, right: right, precision: answered == 0 ? nil : Double(right) / Double(answered),
                recall: total == 0 ? nil : Double(right) / Double(total))
        }
        self.default = level(.default)
        weak = level(.weak)
        unmatched = decisions.filter { $0.confidence == nil }.reduce(0) { $0 + $1.count }
    }
}
