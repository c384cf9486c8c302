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
/// - `WEAK` is the best remaining candidate when it is ambiguous, or when only the network (not the address), or
///   only the OS and device, agree. Without any of that, there is no match.
public enum AttributionMatcher {
    public struct Candidate: Sendable, Equatable {
        public var id: String
        public var createdAt: Date
        public var fingerprint: DeviceFingerprint

        public init(id: String, createdAt: Date, fingerprint: DeviceFingerprint) {
            self.id = id
            self.createdAt = createdAt
            self.fingerprint = fingerprint
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

    /// Chooses among `candidates` (unclaimed clicks of the install's project and platform) those made in the
    /// `window` before `now`. `addressActivity` is how many clicks of the project came from the install's address
    /// in the last `crowdPeriod`, on any platform, claimed or not; `similarActivity` how many of those came from
    /// the install's platform, OS version and device.
    public static func match(
        install: DeviceFingerprint, candidates: [Candidate], now: Date, window: TimeInterval, addressActivity: Int = 0,
        similarActivity: Int = 0
    ) -> Decision {
        var crowd = addressActivity
        let compared = candidates.compactMap { candidate -> (Candidate, Comparison)? in
            let age = now.timeIntervalSince(candidate.createdAt)
            guard age >= -60, age <= window else { return nil }  // a minute of clock skew between instances
            let comparison = compare(install, candidate.fingerprint, ageFraction: max(0, age) / window)
            return comparison.ruledOut ? nil : (candidate, comparison)
        }
        crowd = max(crowd, candidates.filter { $0.fingerprint.addressHash != nil && $0.fingerprint.addressHash == install.addressHash }.count)
        guard let best = compared.max(by: { $0.1.score < $1.1.score }) else { return .none(message: noMatchMessage) }
        let sameAddress = compared.filter { $0.1.sameAddress }
        let confident = sameAddress.filter { $0.1.sameOS == true && $0.1.sameDevice == true && $0.1.sameLanguage != false }
        if sameAddress.count == 1, let only = confident.first {
            let measured = only.1.sameScreen == true && only.1.sameTimeZone == true
            if (crowd < crowdedAddress && similarActivity < 2) || measured {
                return .matched(
                    id: only.0.id, confidence: .default,
                    message: "Matched the only recent click from this address with the same OS, device and language.")
            }
            return .matched(
                id: only.0.id, confidence: .weak,
                message: "\(crowd) clicks came from this shared address today; the one that fits this device is given as a weak match.")
        }
        if sameAddress.count > 1 {
            let chosen = sameAddress.max(by: { $0.1.score < $1.1.score })!
            return .matched(
                id: chosen.0.id, confidence: .weak,
                message: "\(sameAddress.count) recent clicks from this address fit this device; the most likely is given as a weak match.")
        }
        if let only = sameAddress.first {
            return .matched(
                id: only.0.id, confidence: .weak,
                message: "A recent click from this address, but the OS, device or language could not be confirmed.")
        }
        if best.1.sameNetwork || (best.1.sameOS == true && best.1.sameDevice == true) {
            let reason =
                install.ipVersion != nil && install.ipVersion != best.0.fingerprint.ipVersion
                ? "the click and the app used different IP versions" : "the click came from another address"
            return .matched(
                id: best.0.id, confidence: .weak,
                message: "Matched without address agreement (\(reason), as with iCloud Private Relay or a network change).")
        }
        return .none(message: noMatchMessage)
    }
}
