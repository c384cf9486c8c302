import Foundation

/// Picks the click an install most likely came from, when the install has no token: a pure function of the
/// install's fingerprint and the candidate clicks, so it is tested (and simulated) without a database.
///
/// It weighs the evidence with `AttributionModel` (docs/attribution.md explains it for app developers):
/// - Every recent click from the install's address or network is a candidate, and so is "none of them" (an organic
///   install, or a click made elsewhere). Each gets a weight: how likely an install's own click is to be seen where
///   this one was (the same address, or only the same /24 or /64), shared among the strangers' clicks expected
///   there (a carrier NAT that sent 300 clicks today expects many, a home one), times one likelihood ratio per
///   signal both sides know (OS version, device, language, the preview page's screen and time zone) and one for
///   the delay from the click to the install (40 s is far likelier for one's own click than 90 minutes).
/// - `DEFAULT` when a click from the install's address has a posterior of at least 0.99: much more likely than every
///   other candidate together and than none of them. `WEAK` for the likeliest from 0.4. Otherwise no match.
/// - A click whose address and network both differ from the install's is never a candidate, whatever else agrees
///   (as FDL's weak matches still needed the network): otherwise anyone could claim, from anywhere, the clicks of
///   every device like theirs.
/// - A click that an earlier install took only as `WEAK` can still go to a `DEFAULT` match (its real owner), never
///   to another `WEAK` one: a guess must not deprive the owner, nor be handed out again and again. It still counts
///   as a candidate, so it still makes the others less likely.
public enum AttributionMatcher {
    /// A pending click that might be the claiming install's: what the matcher weighs of it.
    public struct Candidate: Sendable, Equatable {
        public var id: String
        public var createdAt: Date
        public var fingerprint: DeviceFingerprint
        /// An earlier install took this click as a `WEAK` match: only a `DEFAULT` match may take it again.
        public var weaklyClaimed: Bool

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(id: String, createdAt: Date, fingerprint: DeviceFingerprint, weaklyClaimed: Bool = false) {
            self.id = id
            self.createdAt = createdAt
            self.fingerprint = fingerprint
            self.weaklyClaimed = weaklyClaimed
        }
    }

    /// The click an install is given and how sure the match is, or none; `message` is the reason the answer
    /// carries, as FDL's match message.
    public enum Decision: Sendable, Equatable {
        case matched(id: String, confidence: AttributionConfidence, message: String)
        case none(message: String)
    }

    public static let noMatchMessage = "No pre-install link matched for this device."
    /// How far a click may be dated after the claim (the clocks of two instances) and still be a candidate.
    public static let clockSkewBetweenInstances: TimeInterval = 60
    /// How far back the clicks from an address count towards how busy it is (`addressActivity`).
    public static let crowdPeriod: TimeInterval = 86_400

    /// How a candidate compares with the install: nil where one side does not know.
    struct Comparison {
        var sameAddress = false
        var sameNetwork = false
        var sameOS: Bool?
        var sameDevice: Bool?
        var sameLanguage: Bool?
        var sameScreen: Bool?
        var sameTimeZone: Bool?
    }

    static func compare(_ install: DeviceFingerprint, _ click: DeviceFingerprint) -> Comparison {
        var comparison = Comparison()
        if let address = install.addressHash, address == click.addressHash { comparison.sameAddress = true }
        if let network = install.networkHash, network == click.networkHash { comparison.sameNetwork = true }
        // Fingerprints are normalised when they are made (lowercase devices, major.minor versions), so equality will do.
        func agree(_ a: String?, _ b: String?) -> Bool? {
            guard let a, let b else { return nil }
            return a == b
        }
        comparison.sameOS = agree(install.osVersion, click.osVersion)
        comparison.sameDevice = agree(install.device, click.device)
        if !install.languages.isEmpty, !click.languages.isEmpty {
            comparison.sameLanguage = !Set(install.languages).isDisjoint(with: click.languages)
        }
        comparison.sameScreen = agree(install.screen, click.screen)
        comparison.sameTimeZone = agree(install.timeZone, click.timeZone)
        return comparison
    }

    /// Chooses among `candidates` (clicks of the install's app, unclaimed or only weakly claimed) those made in the
    /// `window` before `now`.
    /// - Parameters:
    ///   - install: what the claiming device sent, hashed as clicks are.
    ///   - candidates: the clicks it may be.
    ///   - now: the claim's time.
    ///   - window: how far back clicks count.
    ///   - addressActivity: how many clicks of the project came from the install's address in the last
    ///     `crowdPeriod`, on any platform, claimed or not.
    ///   - similarActivity: how many of those came from the install's platform, OS version and device.
    ///   - crowdInWindow: when the candidates were read only up to their bound (`CandidateBounds`), how many clicks
    ///     the install's address made in the window, on any platform, claimed or not; 0 when every one was read.
    ///   - installedAt: when the app says it was installed (`appInstallationTime`); a click's delay is measured to it
    ///     when the click came before it (and it is not in the future), else to `now`.
    ///   - model: the evidence's weights.
    /// - Returns: the click and the confidence, or no match with the message FDL's clients show.
    public static func match(
        install: DeviceFingerprint, candidates: [Candidate], now: Date, window: TimeInterval, addressActivity: Int = 0,
        similarActivity: Int = 0, crowdInWindow: Int = 0, installedAt: Date? = nil, model: AttributionModel = .calibrated
    ) -> Decision {
        assess(
            install: install, candidates: candidates, now: now, window: window, addressActivity: addressActivity,
            similarActivity: similarActivity, crowdInWindow: crowdInWindow, installedAt: installedAt, model: model
        ).decision
    }

    /// `match`'s decision with every candidate's evidence (`deferred.debug`); the parameters are `match`'s.
    /// - Returns: the assessment, its `decision` being `match`'s.
    public static func assess(
        install: DeviceFingerprint, candidates: [Candidate], now: Date, window: TimeInterval, addressActivity: Int = 0,
        similarActivity: Int = 0, crowdInWindow: Int = 0, installedAt: Date? = nil, model: AttributionModel = .calibrated
    ) -> AttributionAssessment {
        let android = install.device.map { $0 != "iphone" && $0 != "ipad" } ?? false
        // The app's install time is the claimant's word: it may only shorten a click's delay (a first launch hours
        // after the install is no evidence against the click), never count against a click. A click made after
        // it is measured to the claim instead, as if no time were sent, so a made-up install time cannot push
        // the other candidates aside: it can make one click look as prompt as an immediate claim would, no more.
        let installTime = installedAt.flatMap { $0 <= now.addingTimeInterval(model.clockSkew) ? $0 : nil }
        func delay(_ candidate: Candidate) -> TimeInterval {
            if let installTime, candidate.createdAt <= installTime.addingTimeInterval(model.clockSkew) {
                return installTime.timeIntervalSince(candidate.createdAt)
            }
            return now.timeIntervalSince(candidate.createdAt)
        }
        var kept: [(candidate: Candidate, comparison: Comparison)] = []
        var excluded: [AttributionAssessment.Candidate] = []
        for candidate in candidates {
            let age = now.timeIntervalSince(candidate.createdAt)
            let comparison = compare(install, candidate.fingerprint)
            var reason: String?
            if age < -clockSkewBetweenInstances || age > window {
                reason = age < 0 ? "made after the claim" : "older than the window"
            } else if !comparison.sameAddress && !comparison.sameNetwork {
                reason = "neither the address nor its network is the install's"
            }
            guard let reason else {
                kept.append((candidate, comparison))
                continue
            }
            excluded.append(
                .init(
                    click: candidate.id, secondsBeforeInstall: Int(delay(candidate)),
                    sameAddress: comparison.sameAddress, sameNetwork: comparison.sameNetwork, weaklyClaimed: candidate.weaklyClaimed,
                    posterior: nil, excluded: reason, evidence: []))
        }
        // Strangers expected behind this address now: the other candidates seen there, or the address's other
        // clickers today of whom `presentShare` may be behind it at any hour (a household's members, a carrier NAT's
        // hundreds), whichever is more. A click at a quiet address is strong evidence, one at a carrier NAT weak:
        // this is what makes a crowded address need more signals.
        let fromAddress = kept.filter { $0.comparison.sameAddress }.count
        // Past the candidate bound, the address's crowd in the window stands for the candidates not read.
        let strangersAtAddress = max(
            model.quietAddress, Double(fromAddress - 1), Double(crowdInWindow - 1),
            Double(max(0, addressActivity - fromAddress)) * max(window / crowdPeriod, model.presentShare))
        let strangersOnNetwork = max(1, Double(kept.count - fromAddress))
        let deviceSignal = model.device(android: android)
        // How common devices like this one (platform, OS version, device) are among the strangers at this address
        // today: the day's alike clicks there but the candidate's own, over the day's clicks but its own, shrunk
        // towards the market's share. Where they are commoner than in the market, agreeing on OS and device says less.
        let marketAlike = model.osVersion.strangersAgree * deviceSignal.strangersAgree
        let localAlike =
            (Double(max(0, similarActivity - 1)) + model.alikeShrinkage * marketAlike)
            / (Double(max(0, addressActivity - 1)) + model.alikeShrinkage)
        let languageSignal = model.language(of: install.languages)
        // How often strangers agree with the install on each signal, as seen here: the candidates around the install
        // are a sample of the people near it, so agreeing on a value most of them share (the commonest phone, one
        // time zone) counts for little, on one none of them has for much. Each candidate is judged against the
        // others, and the sample is shrunk towards the market's share, so a few clicks say little.
        let signals: [(name: String, signal: AttributionModel.Signal, agrees: (Comparison) -> Bool?)] = [
            ("osVersion", model.osVersion, \.sameOS), ("device", deviceSignal, \.sameDevice), ("language", languageSignal, \.sameLanguage),
            ("screen", model.screen, \.sameScreen), ("timeZone", model.timeZone, \.sameTimeZone),
        ]
        let sample = signals.map { signal in
            kept.reduce(into: (agreeing: 0, known: 0)) { counts, candidate in
                guard let agrees = signal.agrees(candidate.comparison) else { return }
                counts.known += 1
                if agrees { counts.agreeing += 1 }
            }
        }
        var weighed: [(candidate: Candidate, comparison: Comparison, weight: Double, evidence: [AttributionAssessment.Evidence])] =
            kept.map { candidate, comparison in
                var evidence: [AttributionAssessment.Evidence] = []
                if comparison.sameAddress {
                    evidence.append(.init(signal: "address", agrees: true, ratio: model.sameAddress / strangersAtAddress))
                } else {
                    evidence.append(.init(signal: "network", agrees: true, ratio: model.sameNetworkOnly / strangersOnNetwork))
                }
                for (index, signal) in signals.enumerated() {
                    guard let agrees = signal.agrees(comparison) else { continue }
                    let others = (agreeing: sample[index].agreeing - (agrees ? 1 : 0), known: sample[index].known - 1)
                    let local = signal.signal.seen(agreeing: others.agreeing, of: others.known, shrinkage: model.localShrinkage)
                    evidence.append(.init(signal: signal.name, agrees: agrees, ratio: local.ratio(agrees)))
                }
                if comparison.sameAddress, comparison.sameOS == true, comparison.sameDevice == true, localAlike > marketAlike {
                    evidence.append(.init(signal: "alikeDevices", agrees: nil, ratio: marketAlike / localAlike))
                }
                let delayRatio = model.delayRatio(max(0, delay(candidate)), window: window)
                evidence.append(.init(signal: "delay", agrees: nil, ratio: delayRatio))
                return (candidate, comparison, evidence.reduce(1) { $0 * $1.ratio }, evidence)
            }
        let total = model.noneOfThem + weighed.reduce(0) { $0 + $1.weight }
        weighed.sort { $0.weight > $1.weight }
        var assessment = AttributionAssessment(
            candidates: weighed.map {
                .init(
                    click: $0.candidate.id, secondsBeforeInstall: Int(delay($0.candidate)),
                    sameAddress: $0.comparison.sameAddress, sameNetwork: $0.comparison.sameNetwork,
                    weaklyClaimed: $0.candidate.weaklyClaimed, posterior: $0.weight / total, excluded: nil, evidence: $0.evidence)
            } + excluded, noneOfThem: model.noneOfThem / total, expectedStrangersAtAddress: strangersAtAddress, click: nil, confidence: nil,
            message: noMatchMessage)
        func percent(_ posterior: Double) -> String {
            let tenths = (posterior * 1000).rounded(.down) / 10
            return tenths == tenths.rounded() ? "\(Int(tenths))%" : "\(tenths)%"
        }
        if let best = assessment.candidates.first, let posterior = best.posterior, best.sameAddress, posterior >= model.defaultPosterior {
            assessment.click = best.click
            assessment.confidence = .default
            assessment.message =
                "Matched a recent click from this address: \(percent(posterior)) likely this device's, against every other click and none."
        } else if let best = assessment.candidates.first(where: { !$0.weaklyClaimed && $0.excluded == nil }), let posterior = best.posterior,
            posterior >= model.weakPosterior
        {
            assessment.click = best.click
            assessment.confidence = .weak
            let place = best.sameAddress ? "this address" : "this network, not from this address"
            assessment.message = "The likeliest recent click from \(place) (\(percent(posterior))) is given as a weak match."
        }
        return assessment
    }
}
