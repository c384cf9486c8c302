import Foundation

/// What `AttributionMatcher` made of one claim: every candidate click with the evidence for and against it, most
/// likely first, and the decision. A project with `deferred.debug` returns it with the claim's answer, so a
/// developer can see why a test device got the answer it got.
public struct AttributionAssessment: Sendable, Equatable, Codable {
    /// One piece of evidence: a signal both sides know, the address, or the delay, and its likelihood ratio.
    public struct Evidence: Sendable, Equatable, Codable {
        /// `address`, `network`, `osVersion`, `device`, `language`, `screen`, `timeZone`, `delay`, `alikeDevices`.
        public var signal: String
        /// Whether both sides agree; nil for what is not an agreement (the address's crowd, the delay).
        public var agrees: Bool?
        /// How much more likely this is for the install's own click than for a stranger's.
        public var ratio: Double

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(signal: String, agrees: Bool?, ratio: Double) {
            self.signal = signal
            self.agrees = agrees
            self.ratio = ratio
        }
    }

    /// A click the install may have come from.
    public struct Candidate: Sendable, Equatable, Codable {
        /// The click's id.
        public var click: String
        /// Seconds from the click to the install (negative: the click came after it).
        public var secondsBeforeInstall: Int
        public var sameAddress: Bool
        public var sameNetwork: Bool
        /// An earlier install took it as a `WEAK` match: only a `DEFAULT` match may take it again.
        public var weaklyClaimed: Bool
        /// The chance that it is the install's click; nil when it was not considered (`excluded` says why).
        public var posterior: Double?
        public var excluded: String?
        public var evidence: [Evidence]

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(
            click: String, secondsBeforeInstall: Int, sameAddress: Bool, sameNetwork: Bool, weaklyClaimed: Bool, posterior: Double?,
            excluded: String?, evidence: [Evidence]
        ) {
            self.click = click
            self.secondsBeforeInstall = secondsBeforeInstall
            self.sameAddress = sameAddress
            self.sameNetwork = sameNetwork
            self.weaklyClaimed = weaklyClaimed
            self.posterior = posterior
            self.excluded = excluded
            self.evidence = evidence
        }
    }

    /// Considered candidates first, most likely first; then the excluded ones.
    public var candidates: [Candidate]
    /// The chance that the install came from none of the candidates (an organic install, or a click not seen).
    public var noneOfThem: Double
    /// Strangers' clicks expected from the install's address in the window: a home few, a carrier NAT many.
    public var expectedStrangersAtAddress: Double
    /// The chosen click, or nil.
    public var click: String?
    public var confidence: AttributionConfidence?
    public var message: String

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        candidates: [Candidate], noneOfThem: Double, expectedStrangersAtAddress: Double, click: String?, confidence: AttributionConfidence?,
        message: String
    ) {
        self.candidates = candidates
        self.noneOfThem = noneOfThem
        self.expectedStrangersAtAddress = expectedStrangersAtAddress
        self.click = click
        self.confidence = confidence
        self.message = message
    }
}
