import Foundation

@testable import RelinkCore

/// What a simulated day looks like: every knob the issue names, each with a realistic default. A population is a
/// pure function of its settings (seeded), so a figure in docs/attribution.md can be reproduced exactly.
struct PopulationSettings: Sendable {
    var name: String
    var seed: UInt64 = 20_261_122
    /// People who click a link during the day.
    var clickers = 6000
    /// Installs of the app during the day that no click led to (organic): they must never get DEFAULT.
    var organicInstalls = 1500
    var androidShare = 0.4
    /// Clickers who go on to install.
    var installRate = 0.6
    /// Installs whose token arrived (the clipboard on iOS, the install referrer on Android).
    var tokenShareIOS = 0.3
    var tokenShareAndroid = 0.8
    /// Clickers on home Wi-Fi (the rest behind a carrier's NAT).
    var wifiShare = 0.5
    /// A Wi-Fi clicker's household is one another clicker already uses (two people behind one address).
    var householdSharing = 0.1
    /// Carrier NAT addresses the mobile clickers and installs share: fewer means more crowded addresses.
    var natPoolSize = 40
    /// Carrier addresses per network (/24): NAT pools are blocks of neighbouring addresses.
    var natAddressesPerNetwork = 8
    /// iOS clicks made through iCloud Private Relay (an address of Apple's, never the install's).
    var relayShare = 0.15
    /// A Wi-Fi clicker installs on the same Wi-Fi.
    var wifiInstallSameAddress = 0.85
    /// A carrier clicker still has the same NAT address at install.
    var carrierKeepsAddress = 0.5
    /// Click-to-install delay: log-normal with this median (seconds) and spread, plus a share arriving uniformly
    /// between 30 minutes and 4 hours.
    var medianDelay: Double = 240
    var delaySpread = 1.0
    var lateShare = 0.1
    /// iOS clicks whose preview page ran its script (screen and time zone measured).
    var previewMeasuredShare = 0.7
    /// How concentrated Android models are (Zipf exponent over `androidModelCount` models): higher, more alike.
    var androidModelConcentration = 1.1
    var androidModelCount = 40
    /// iOS versions and their shares (a few take most of the market).
    var iOSVersions: [(String, Double)] = [("18.1", 0.35), ("18.0", 0.2), ("17.6", 0.2), ("18.2", 0.15), ("17.5", 0.1)]
    var androidVersions: [(String, Double)] = [("14", 0.45), ("13", 0.3), ("15", 0.15), ("12", 0.1)]
    var screens: [(String, Double)] = [("390x844", 0.35), ("393x852", 0.25), ("430x932", 0.2), ("375x667", 0.1), ("428x926", 0.1)]
    var timeZones: [(String, Double)] = [("America/New_York", 0.45), ("America/Chicago", 0.2), ("America/Los_Angeles", 0.25), ("Europe/London", 0.1)]
    var languages: [(String, Double)] = [("en", 0.8), ("es", 0.12), ("fr", 0.04), ("zh", 0.04)]
    var iPadShare = 0.08
}

/// One person's day: maybe a click, maybe an install.
struct SimulatedUser: Sendable {
    var id: Int
    var android: Bool
    /// Nil for an organic install.
    var click: DeviceFingerprint?
    var clickTime: Double
    var installs: Bool
    var install: DeviceFingerprint
    var installTime: Double
    var hasToken: Bool
}

/// SplitMix64: a small seeded generator, so every run sees the same population.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension PopulationSettings {
    /// The people of this population's day, clickers first, then organic installs.
    func users() -> [SimulatedUser] {
        var random = SeededGenerator(state: seed)
        func uniform() -> Double { Double.random(in: 0..<1, using: &random) }
        func chance(_ p: Double) -> Bool { uniform() < p }
        func pick(_ weighted: [(String, Double)]) -> String {
            var left = uniform() * weighted.reduce(0) { $0 + $1.1 }
            for (value, weight) in weighted {
                left -= weight
                if left < 0 { return value }
            }
            return weighted.last!.0
        }
        let models = (1...androidModelCount).map { ("model-\($0)", 1 / pow(Double($0), androidModelConcentration)) }
        func carrier() -> String {
            let index = Int.random(in: 0..<natPoolSize, using: &random)
            return "nat\(index / natAddressesPerNetwork)-\(index)"
        }
        func located(_ fingerprint: DeviceFingerprint, _ address: String) -> DeviceFingerprint {
            var located = fingerprint
            located.addressHash = address
            located.networkHash = String(address.split(separator: "-").first!)
            return located
        }
        func device(android: Bool) -> DeviceFingerprint {
            DeviceFingerprint(
                ipVersion: .v4, osVersion: pick(android ? androidVersions : iOSVersions),
                device: android ? pick(models) : (chance(iPadShare) ? "ipad" : "iphone"), languages: [pick(languages)],
                screen: pick(screens), timeZone: pick(timeZones))
        }
        func delay() -> Double {
            if chance(lateShare) { return Double.random(in: 1800..<14_400, using: &random) }
            // Box-Muller: a standard normal, for the log-normal delay.
            let normal = sqrt(-2 * log(max(uniform(), 1e-12))) * cos(2 * .pi * uniform())
            return max(20, medianDelay * exp(delaySpread * normal))
        }
        var households: [String] = []
        var users: [SimulatedUser] = []
        for id in 0..<clickers {
            let android = chance(androidShare)
            let phone = device(android: android)
            let wifi = chance(wifiShare)
            var home = "home\(id)-\(id)"
            if wifi, !households.isEmpty, chance(householdSharing) { home = households.randomElement(using: &random)! }
            if wifi { households.append(home) }
            var clickAddress = wifi ? home : carrier()
            let relayed = !android && chance(relayShare)
            if relayed { clickAddress = "relay\(id)-\(id)" }
            let installAddress =
                wifi
                ? (chance(wifiInstallSameAddress) ? home : carrier())
                : (!relayed && chance(carrierKeepsAddress) ? clickAddress : carrier())
            var click = located(phone, clickAddress)
            if android || !chance(previewMeasuredShare) {
                click.screen = nil
                click.timeZone = nil
            }
            let clickTime = Double.random(in: 0..<86_400, using: &random)
            users.append(
                SimulatedUser(
                    id: id, android: android, click: click, clickTime: clickTime, installs: chance(installRate),
                    install: located(phone, installAddress), installTime: clickTime + delay(),
                    hasToken: chance(android ? tokenShareAndroid : tokenShareIOS)))
        }
        for offset in 0..<organicInstalls {
            let android = chance(androidShare)
            let address =
                chance(wifiShare) ? (households.isEmpty || !chance(0.05) ? "other\(offset)-0" : households.randomElement(using: &random)!) : carrier()
            users.append(
                SimulatedUser(
                    id: clickers + offset, android: android, click: nil, clickTime: 0, installs: true,
                    install: located(device(android: android), address), installTime: Double.random(in: 0..<86_400, using: &random),
                    hasToken: false))
        }
        return users
    }
}
