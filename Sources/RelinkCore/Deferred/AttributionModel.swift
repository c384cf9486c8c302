import Foundation

/// How likely each recent click is to be an install's own, from the evidence both sides carry: the small Bayesian
/// model `AttributionMatcher` decides with, calibrated on the simulated populations of `AttributionSimulationTests`
/// (`RELINK_CALIBRATE=1 swift test --filter AttributionCalibration` prints the sweep; docs/attribution.md explains it).
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
/// The posterior of each candidate is its weight over the sum of all weights. `AttributionMatcher` gives DEFAULT
/// only when the best candidate's posterior is at least `defaultPosterior` (it is then much more likely than every
/// other candidate together and than "none of them"), WEAK from `weakPosterior`, else nothing.
public struct AttributionModel: Sendable {
    /// P(the install's address is the click's | its own click), and P(only the /24 or /64 is the same | …).
    public var sameAddress = 0.55
    public var sameNetworkOnly = 0.08
    /// Strangers' clicks expected in a window at an address that shows none (a home): the floor of that estimate.
    public var quietAddress = 0.02
    /// The share of the other people who clicked from the install's address today that count as strangers who may
    /// be behind it now (at least the window's share of the day): a household's other members can install at any
    /// hour, so an address with several clickers today is less sure than one with one.
    public var presentShare = 0.3
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
    /// How many of the market's clicks the address's own count is weighed against when judging how common devices
    /// like the install's are there: a few alike clicks at a quiet address say little, many at a busy one a lot.
    public var alikeShrinkage = 2.0
    /// How many clicks the market's shares count for against the candidates' own (`Signal.seen`).
    public var localShrinkage = 8.0
    /// Seconds of difference between a device's clock and the server's that are no evidence: an install time up to
    /// this far in the future still counts, and so does a click up to this long after it.
    public var clockSkew: Double = 120

    /// One signal: how often it disagrees for the same device, and how often it agrees between strangers.
    public struct Signal: Sendable {
        public var changes: Double
        public var strangersAgree: Double

        public init(changes: Double, strangersAgree: Double) {
            self.changes = changes
            self.strangersAgree = strangersAgree
        }

        /// The signal with `strangersAgree` estimated from a local sample: `agreeing` of `known` strangers' clicks
        /// agree with the install, weighed against `shrinkage` clicks at the market's share.
        /// - Parameters:
        ///   - agreeing: strangers' clicks nearby that agree with the install.
        ///   - known: strangers' clicks nearby for which the signal is known.
        ///   - shrinkage: how many clicks the market's share counts for.
        /// - Returns: the signal with the estimated `strangersAgree`.
        public func seen(agreeing: Int, of known: Int, shrinkage: Double) -> Signal {
            let share = (Double(max(0, agreeing)) + shrinkage * strangersAgree) / (Double(max(0, known)) + shrinkage)
            return Signal(changes: changes, strangersAgree: min(max(share, 0.001), 0.999))
        }

        /// The likelihood ratio of an agreement (nil: unknown on a side, no evidence).
        /// - Parameter agree: whether both sides agree, nil when one does not know.
        /// - Returns: P(this | the install's own click) / P(this | a stranger's click).
        public func ratio(_ agree: Bool?) -> Double {
            switch agree {
            case true?: (1 - changes) / strangersAgree
            case false?: changes / (1 - strangersAgree)
            case nil: 1
            }
        }
    }

    /// Major.minor OS versions: a few take most of the market, and few devices update between click and install.
    public var osVersion = Signal(changes: 0.005, strangersAgree: 0.3)
    /// iOS only tells iPhone from iPad, which most strangers share.
    public var iOSDevice = Signal(changes: 0.001, strangersAgree: 0.85)
    /// An Android model (`pixel 7`): the most common few models take a tenth of the market.
    public var androidModel = Signal(changes: 0.001, strangersAgree: 0.2)
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
    /// - Parameters:
    ///   - delay: seconds from the click to the install.
    ///   - window: how far back clicks are candidates, in seconds.
    /// - Returns: the ratio, about 10 at the median delay of a 2-hour window, below 1 past an hour or so.
    public func delayRatio(_ delay: TimeInterval, window: TimeInterval) -> Double {
        let seconds = max(delay, medianDelay)
        let z = (log(seconds) - log(medianDelay)) / delaySpread
        let logNormal = exp(-z * z / 2) / (seconds * delaySpread * (2 * Double.pi).squareRoot())
        let density = (1 - lateShare) * logNormal + lateShare / lateSpan
        return density * window
    }

    /// The signal a device family is compared with: an Android model says much more than iPhone or iPad.
    /// - Parameter android: whether the install runs Android.
    /// - Returns: `androidModel` or `iOSDevice`.
    public func device(android: Bool) -> Signal { android ? androidModel : iOSDevice }

    /// The signal the install's language is compared with: English agreeing says little, Japanese more.
    /// - Parameter languages: the install's languages, preferred first.
    /// - Returns: `language` or `lessCommonLanguage`.
    public func language(of languages: [String]) -> Signal {
        (languages.first.map { $0 == "en" } ?? true) ? language : lessCommonLanguage
    }
}
