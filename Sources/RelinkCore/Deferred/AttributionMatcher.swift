import Foundation

/// Picks the click an install most likely came from, when the install has no token: a pure function of the
/// install's fingerprint and the candidate clicks, so it is tested (and simulated) without a database.
///
/// The rules, after FDL's contract:
/// - A candidate is ruled out when a signal both sides know disagrees: OS version (major.minor), device, screen,
///   time zone. People do not change phones, OS versions or time zones between a click and the install.
/// - `DEFAULT` needs exactly one remaining candidate from the same address, and that one must also agree on OS and
///   device, and on language when both sides know it. A second candidate from the same address makes it ambiguous.
/// - An address that many clicks came from in the last day (`crowdedAddress` or more, on any platform, claimed or
///   not) is a carrier NAT or a public network: there the one fitting click is often someone else's, so `DEFAULT`
///   also needs the screen and time zone the preview page measured to agree. The same holds when several clicks
///   from the address today came from devices like this one, even if some were claimed already: an earlier weak
///   match may have taken the wrong one, so what is left is no surer.
/// - `WEAK` is the best remaining candidate when it is ambiguous, or when only the network (not the address)
///   agrees. A click whose address and network both differ from the install's is never matched, whatever else
///   agrees (as FDL's weak matches still needed the network): otherwise anyone could claim, from anywhere, the
///   clicks of every device like theirs.
/// - A click that an earlier install took only as `WEAK` can still go to a `DEFAULT` match (its real owner), never
///   to another `WEAK` one: a guess must not deprive the owner, nor be handed out again and again.
public enum AttributionMatcher {
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

    public enum Decision: Sendable, Equatable {
        case matched(id: String, confidence: AttributionConfidence, message: String)
        case none(message: String)
    }

    public static let noMatchMessage = "No pre-install link matched for this device."
    /// Clicks from one address in a day that make it a shared one.
    public static let crowdedAddress = 3
    /// How far back clicks count towards `crowdedAddress`.
    public static let crowdPeriod: TimeInterval = 86_400

    /// How each candidate compares with the install.
    struct Comparison {
        var sameAddress = false
        var sameNetwork = false
        var sameOS: Bool?
        var sameDevice: Bool?
        var sameLanguage: Bool?
        var sameScreen: Bool?
        var sameTimeZone: Bool?
        var ruledOut = false
        var score = 0.0
    }

    static func compare(_ install: DeviceFingerprint, _ click: DeviceFingerprint, ageFraction: Double) -> Comparison {
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
        let sameScreen = agree(install.screen, click.screen)
        let sameTimeZone = agree(install.timeZone, click.timeZone)
        comparison.sameScreen = sameScreen
        comparison.sameTimeZone = sameTimeZone
        comparison.ruledOut =
            comparison.sameOS == false || comparison.sameDevice == false || sameScreen == false || sameTimeZone == false
        var score = 0.0
        if comparison.sameAddress { score += 40 } else if comparison.sameNetwork { score += 20 }
        if comparison.sameOS == true { score += 15 }
        if comparison.sameDevice == true { score += 15 }
        if comparison.sameLanguage == true { score += 10 } else if comparison.sameLanguage == false { score -= 10 }
        if sameScreen == true { score += 10 }
        if sameTimeZone == true { score += 10 }
        // The most recent click wins ties.
        comparison.score = score - 5 * ageFraction
        return comparison
    }

    /// Chooses among `candidates` (clicks of the install's app, unclaimed or only weakly claimed) those made in the
    /// `window` before `now`. `addressActivity` is how many clicks of the project came from the install's address
    /// in the last `crowdPeriod`, on any platform, claimed or not; `similarActivity` how many of those came from
    /// the install's platform, OS version and device.
    /// - Parameters:
    ///   - install: what the claiming device sent, hashed as clicks are.
    ///   - candidates: the clicks it may be.
    ///   - now: the claim's time.
    ///   - window: how far back clicks count.
    ///   - addressActivity: recent clicks from the install's address.
    ///   - similarActivity: those of them from the same platform, OS version and device.
    /// - Returns: the click and the confidence, or no match with the message FDL's clients show.
    public static func match(
        install: DeviceFingerprint, candidates: [Candidate], now: Date, window: TimeInterval, addressActivity: Int = 0,
        similarActivity: Int = 0
    ) -> Decision {
        var crowd = addressActivity
        let compared = candidates.compactMap { candidate -> (Candidate, Comparison)? in
            let age = now.timeIntervalSince(candidate.createdAt)
            guard age >= -60, age <= window else { return nil }  // a minute of clock skew between instances
            let comparison = compare(install, candidate.fingerprint, ageFraction: max(0, age) / window)
            // No agreement on the address or its network: another person's click, whatever else agrees.
            guard !comparison.ruledOut, comparison.sameAddress || comparison.sameNetwork else { return nil }
            return (candidate, comparison)
        }
        crowd = max(crowd, candidates.filter { $0.fingerprint.addressHash != nil && $0.fingerprint.addressHash == install.addressHash }.count)
        // A weakly claimed click stays in `compared` (it still makes the address ambiguous) but can only be
        // given as DEFAULT; `weak` answers with the best of the others.
        let sameAddress = compared.filter { $0.1.sameAddress }
        let confident = sameAddress.filter { $0.1.sameOS == true && $0.1.sameDevice == true && $0.1.sameLanguage != false }
        func weak(_ pool: [(Candidate, Comparison)], _ message: String) -> Decision {
            guard let chosen = pool.filter({ !$0.0.weaklyClaimed }).max(by: { $0.1.score < $1.1.score }) else {
                return .none(message: noMatchMessage)
            }
            return .matched(id: chosen.0.id, confidence: .weak, message: message)
        }
        if sameAddress.count == 1, let only = confident.first {
            let measured = only.1.sameScreen == true && only.1.sameTimeZone == true
            if (crowd < crowdedAddress && similarActivity < 2) || measured {
                return .matched(
                    id: only.0.id, confidence: .default,
                    message: "Matched the only recent click from this address with the same OS, device and language.")
            }
            return weak(
                sameAddress,
                "\(crowd) clicks came from this shared address today; the one that fits this device is given as a weak match.")
        }
        if sameAddress.count > 1 {
            return weak(
                sameAddress,
                "\(sameAddress.count) recent clicks from this address fit this device; the most likely is given as a weak match.")
        }
        if !sameAddress.isEmpty {
            return weak(sameAddress, "A recent click from this address, but the OS, device or language could not be confirmed.")
        }
        // Only the network agrees (an address change on one network, or another device behind it).
        return weak(compared, "Matched a recent click from this network, not from this address, as a weak match.")
    }
}
