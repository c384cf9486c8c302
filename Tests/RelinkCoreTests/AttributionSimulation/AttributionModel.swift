import Foundation

@testable import RelinkCore

/// A candidate successor to `AttributionMatcher`'s rules, under calibration (issue 11; not used by the server yet):
/// how likely each recent click is to be an install's own, from the evidence both sides carry, as a small Bayesian
/// model. `AttributionCalibrationTests` runs it against the production rules on every population.
///
/// Every install has one of these explanations: it came from candidate click *c*, or from none of them (an organic
/// install, a click too long ago, a click behind another address). Each gets a weight:
/// - *c*: the chance that an install's own click is seen from the same address (`sameAddress`), or only from the
///   same network (`sameNetworkOnly`), shared among the clicks expected from there in the window (a carrier NAT
///   expects many, a home one or two), times one likelihood ratio per signal both sides know:
///   P(what we see | it is the install's click) / P(what we see | it is someone else's). A signal that agrees
///   raises it by how rare agreement between strangers is; a signal that disagrees lowers it by how rare a
///   change is between a click and an install. The delay counts too: 40 s after a click is far likelier for an
///   install's own click than 90 minutes.
/// - none of them: `noneOfThem`, the chance that an install's click is not among what the address and network show.
///
/// The posterior of each candidate is its weight over the sum of all weights. `ModelMatcher` gives DEFAULT
/// only when the best candidate's posterior is at least `defaultPosterior` (it is then much more likely than every
/// other candidate together and than "none of them"), WEAK from `weakPosterior`, else nothing.
public struct AttributionModel: Sendable {
    /// P(the install's address is the click's | its own click), and P(only the /24 or /64 is the same | …).
    public var sameAddress = 0.55
    public var sameNetworkOnly = 0.08
    /// Strangers' clicks expected in a window at an address that shows none (a home): the floor of that estimate.
    public var quietAddress = 0.05
    /// The weight of "none of the candidates": installs that came from no click, or from one we cannot see.
    public var noneOfThem = 0.3
    /// The posterior a DEFAULT needs, and a WEAK one.
    public var defaultPosterior = 0.99
    public var weakPosterior = 0.4

    /// Click-to-install delay of an install's own click: log-normal around `medianDelay` seconds, plus a share of
    /// late installs spread over `lateSpan`.
    public var medianDelay: Double = 240
    public var delaySpread = 1.0
    public var lateShare = 0.12
    public var lateSpan: Double = 14_400

    /// One signal: how often it disagrees for the same device, and how often it agrees between strangers.
    public struct Signal: Sendable {
        public var changes: Double
        public var strangersAgree: Double

        public init(changes: Double, strangersAgree: Double) {
            self.changes = changes
            self.strangersAgree = strangersAgree
        }

        /// The likelihood ratio of an agreement (nil: unknown on a side, no evidence).
        func ratio(_ agree: Bool?) -> Double {
            switch agree {
            case true?: (1 - changes) / strangersAgree
            case false?: changes / (1 - strangersAgree)
            case nil: 1
            }
        }
    }

    /// Major.minor OS versions: a few take most of the market, and few devices update between click and install.
    public var osVersion = Signal(changes: 0.02, strangersAgree: 0.3)
    /// iOS only tells iPhone from iPad, which most strangers share.
    public var iOSDevice = Signal(changes: 0.001, strangersAgree: 0.85)
    /// An Android model (`pixel 7`): the most common few models take a tenth of the market.
    public var androidModel = Signal(changes: 0.001, strangersAgree: 0.1)
    /// Accept-Language against the device's language: the same person, but browsers and apps may differ.
    public var language = Signal(changes: 0.05, strangersAgree: 0.75)
    /// A language other than English agreeing is rarer between strangers.
    public var lessCommonLanguage = Signal(changes: 0.05, strangersAgree: 0.15)
    /// The preview page's measured screen (points): a handful of sizes cover most phones.
    public var screen = Signal(changes: 0.05, strangersAgree: 0.25)
    /// The page's time zone: neighbours behind one address mostly share it.
    public var timeZone = Signal(changes: 0.02, strangersAgree: 0.5)

    public init() {}

    /// The model as calibrated so far.
    public static let calibrated = AttributionModel()

    /// The likelihood ratio of a click made `delay` seconds before the install (`window`: how far back clicks count):
    /// the own-click delay density over a stranger's, uniform over the window.
    /// Delays shorter than the median count as the median: a store install takes a while, but a claim that comes
    /// sooner (a test device, clocks of two instances a little apart) is no evidence against the click.
    public func delayRatio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let seconds = max(delay, medianDelay)
        let z = (log(seconds) - log(medianDelay)) / delaySpread
        let logNormal = exp(-z * z / 2) / (seconds * delaySpread * (2 * Double.pi).squareRoot())
        let density = (1 - lateShare) * logNormal + lateShare / lateSpan
        return density * window
    }

    /// The likelihood ratio of everything but address and delay.
    func signalRatio(_ comparison: ModelMatcher.Comparison, android: Bool, languages: [String]) -> Double {
        var ratio = osVersion.ratio(comparison.sameOS)
        ratio *= (android ? androidModel : iOSDevice).ratio(comparison.sameDevice)
        let common = languages.first.map { $0 == "en" } ?? true
        ratio *= (common ? language : lessCommonLanguage).ratio(comparison.sameLanguage)
        ratio *= screen.ratio(comparison.sameScreen)
        ratio *= timeZone.ratio(comparison.sameTimeZone)
        return ratio
    }
}

/// The matcher the model makes: the same questions and answers as `AttributionMatcher.match`.
enum ModelMatcher {
    /// The server's comparison of two fingerprints (its score and ruling-out are not used here).
    typealias Comparison = AttributionMatcher.Comparison

    static func compare(_ install: DeviceFingerprint, _ click: DeviceFingerprint) -> Comparison {
        AttributionMatcher.compare(install, click, ageFraction: 0)
    }

    struct Scored {
        var id: String
        var posterior: Double
        var sameAddress: Bool
        var weaklyClaimed: Bool
    }

    /// Candidates within the window from the install's address or network, most likely first.
    static func evaluate(_ question: AttributionSimulation.Question, model: AttributionModel) -> [Scored] {
        let install = question.install
        let android = install.device.map { $0 != "iphone" && $0 != "ipad" } ?? false
        var kept: [(AttributionMatcher.Candidate, Comparison, TimeInterval)] = []
        for candidate in question.candidates {
            let age = question.now.timeIntervalSince(candidate.createdAt)
            guard age >= -60, age <= question.window else { continue }
            let comparison = compare(install, candidate.fingerprint)
            guard comparison.sameAddress || comparison.sameNetwork else { continue }
            kept.append((candidate, comparison, max(0, age)))
        }
        // Strangers' clicks expected from this address in a window: a click at a quiet address is strong evidence,
        // one at a carrier NAT weak.
        let fromAddress = kept.filter { $0.1.sameAddress }.count
        let strangersAtAddress = max(
            model.quietAddress, Double(fromAddress - 1),
            Double(max(0, question.addressActivity - fromAddress)) * question.window / AttributionMatcher.crowdPeriod)
        let strangersOnNetwork = max(1, Double(kept.count - fromAddress))
        let localAlike = question.addressActivity > 0 ? Double(question.similarActivity) / Double(question.addressActivity) : 0
        var weighted: [(AttributionMatcher.Candidate, Comparison, Double)] = kept.map { candidate, comparison, delay in
            var weight =
                comparison.sameAddress ? model.sameAddress / strangersAtAddress : model.sameNetworkOnly / strangersOnNetwork
            weight *= model.signalRatio(comparison, android: android, languages: install.languages)
            if comparison.sameAddress, comparison.sameOS == true, comparison.sameDevice == true, localAlike > 0 {
                let strangers = model.osVersion.strangersAgree * (android ? model.androidModel : model.iOSDevice).strangersAgree
                if localAlike > strangers { weight *= strangers / localAlike }
            }
            weight *= model.delayRatio(delay, window: question.window)
            return (candidate, comparison, weight)
        }
        let total = model.noneOfThem + weighted.reduce(0) { $0 + $1.2 }
        weighted.sort { $0.2 > $1.2 }
        return weighted.map {
            Scored(id: $0.0.id, posterior: $0.2 / total, sameAddress: $0.1.sameAddress, weaklyClaimed: $0.0.weaklyClaimed)
        }
    }

    static func match(_ question: AttributionSimulation.Question, model: AttributionModel = .calibrated) -> AttributionMatcher.Decision {
        let scored = evaluate(question, model: model)
        if let best = scored.first, best.sameAddress, best.posterior >= model.defaultPosterior {
            return .matched(id: best.id, confidence: .default, message: "")
        }
        guard let best = scored.first(where: { !$0.weaklyClaimed }), best.posterior >= model.weakPosterior else {
            return .none(message: AttributionMatcher.noMatchMessage)
        }
        return .matched(id: best.id, confidence: .weak, message: "")
    }
}
