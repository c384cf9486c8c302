import Foundation

/// Why a claim got its answer, for a project with `deferred.debug` on: returned with the answer as `debug`, so a
/// developer testing on a device can see how Relink saw the install and each click it weighed.
///
/// Click ids are claim tokens (the clipboard link and the install referrer carry them), so candidates are named
/// `#1`, `#2`, … here, never by their ids.
public struct AttributionDebug: Sendable, Equatable, Codable {
    /// `token` (the claim named its click), `fingerprint` (matched on the device's signals) or `previousAnswer` (this
    /// install asked before and gets that answer again).
    public var method: String
    /// What happened, in a sentence.
    public var note: String
    /// The install as the matcher saw it (its address only as whether it was known).
    public var install: Install?
    /// The fingerprint match's candidates and evidence; nil for a token claim.
    public var assessment: AttributionAssessment?

    /// The install's signals.
    public struct Install: Sendable, Equatable, Codable {
        public var addressKnown: Bool
        public var osVersion: String?
        public var device: String?
        public var languages: [String]
        public var screen: String?
        public var timeZone: String?
        /// Seconds from the app's install (`appInstallationTime`) to the claim, when it sent a usable one.
        public var installedSecondsBeforeClaim: Int?
        /// How far back clicks were candidates.
        public var windowSeconds: Int

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(
            addressKnown: Bool, osVersion: String?, device: String?, languages: [String], screen: String?, timeZone: String?,
            installedSecondsBeforeClaim: Int?, windowSeconds: Int
        ) {
            self.addressKnown = addressKnown
            self.osVersion = osVersion
            self.device = device
            self.languages = languages
            self.screen = screen
            self.timeZone = timeZone
            self.installedSecondsBeforeClaim = installedSecondsBeforeClaim
            self.windowSeconds = windowSeconds
        }

    }

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(method: String, note: String, install: Install? = nil, assessment: AttributionAssessment? = nil) {
        self.method = method
        self.note = note
        self.install = install
        self.assessment = assessment
    }
}

extension AttributionAssessment {
    /// The assessment with every click id replaced by its rank (`#1` the likeliest), so it can be shown to the
    /// claiming device without handing out other people's claim tokens.
    /// - Returns: the same assessment, its candidates and chosen click named by rank.
    public func redacted() -> AttributionAssessment {
        var copy = self
        var labels: [String: String] = [:]
        for index in copy.candidates.indices {
            let label = "#\(index + 1)"
            labels[copy.candidates[index].click] = label
            copy.candidates[index].click = label
        }
        copy.click = click.flatMap { labels[$0] }
        return copy
    }
}
