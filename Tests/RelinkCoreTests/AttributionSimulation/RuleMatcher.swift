import Foundation

@testable import RelinkCore

/// The hand-set rules `AttributionMatcher` used before its model (issue 11), kept unchanged as the baseline the
/// simulation compares the model with ("today's" figures in docs/attribution.md):
/// - a candidate is ruled out when OS version, device, screen or time zone disagree;
/// - `DEFAULT` needs exactly one remaining candidate from the address, agreeing on OS, device and language, and at a
///   crowded address (3 clicks a day or more, or 2 alike devices) also on the preview page's screen and time zone;
/// - otherwise `WEAK` for the best score (address 40, network 20, each agreeing signal 10-15), from the address or
///   network only.
enum RuleMatcher {
    typealias Candidate = AttributionMatcher.Candidate
    typealias Decision = AttributionMatcher.Decision

    static let noMatchMessage = AttributionMatcher.noMatchMessage
    /// Clicks from one address in a day that make it a shared one.
    static let crowdedAddress = 3
    /// How far back clicks count towards `crowdedAddress`.
    static let crowdPeriod: TimeInterval = 86_400

    /// How each candidate compares with the install: the server's comparison, ruled out or scored.
    struct Comparison {
        var signals: AttributionMatcher.Comparison
        var ruledOut = false
        var score = 0.0

        var sameAddress: Bool { signals.sameAddress }
        var sameNetwork: Bool { signals.sameNetwork }
        var sameOS: Bool? { signals.sameOS }
        var sameDevice: Bool? { signals.sameDevice }
        var sameLanguage: Bool? { signals.sameLanguage }
        var sameScreen: Bool? { signals.sameScreen }
        var sameTimeZone: Bool? { signals.sameTimeZone }
    }

    static func compare(_ install: DeviceFingerprint, _ click: DeviceFingerprint, ageFraction: Double) -> Comparison {
        var comparison = Comparison(signals: AttributionMatcher.compare(install, click))
        comparison.ruledOut =
            comparison.sameOS == false || comparison.sameDevice == false || comparison.sameScreen == false || comparison.sameTimeZone == false
        var score = 0.0
        if comparison.sameAddress { score += 40 } else if comparison.sameNetwork { score += 20 }
        if comparison.sameOS == true { score += 15 }
        if comparison.sameDevice == true { score += 15 }
        if comparison.sameLanguage == true { score += 10 } else if comparison.sameLanguage == false { score -= 10 }
        if comparison.sameScreen == true { score += 10 }
        if comparison.sameTimeZone == true { score += 10 }
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
    static func match(
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
