import Foundation
import Testing

@testable import RelinkCore

/// A day of clicks and installs in a population built to be hard: carrier NAT (dozens of phones behind one
/// address), households sharing Wi-Fi, identical device models and OS versions, phones switching networks between
/// the click and the install, iCloud Private Relay, installs hours later, and clicks that never lead to an install.
/// Claims run through the matcher in time order, taking each click once, as the server does.
@Suite("Deferred-link attribution simulation")
struct AttributionSimulationTests {
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

    struct User {
        var id: Int
        var android: Bool
        var click: DeviceFingerprint
        var clickTime: Double
        var installs: Bool
        var install: DeviceFingerprint
        var installTime: Double
        /// The clipboard token (iOS) or install referrer (Android) reached the app.
        var hasToken: Bool
    }

    static func population(seed: UInt64, count: Int) -> [User] {
        var random = SeededGenerator(state: seed)
        func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &random) < p }
        let carrier = (0..<40).map { "cgnat-\($0)" }
        let iOSVersions = ["17.5", "17.6", "18.0", "18.1", "18.2"]
        let androidModels = ["pixel 7", "pixel 8", "sm-s911b", "sm-a546b", "sm-s921b", "2201116sg"]
        let androidVersions = ["13", "14", "15"]
        let screens = ["390x844", "393x852", "430x932", "375x667"]
        let zones = ["America/New_York", "America/New_York", "Europe/London", "Asia/Tokyo"]
        var households: [String] = []
        var users: [User] = []
        for id in 0..<count {
            let android = chance(0.4)
            var device = DeviceFingerprint(
                ipVersion: .v4,
                osVersion: android ? androidVersions.randomElement(using: &random)! : iOSVersions.randomElement(using: &random)!,
                device: android ? androidModels.randomElement(using: &random)! : (chance(0.9) ? "iphone" : "ipad"),
                languages: [["en", "en", "en", "en", "en", "en", "en", "ja", "fr", "de"].randomElement(using: &random)!],
                screen: screens.randomElement(using: &random)!, timeZone: zones.randomElement(using: &random)!)
            // Half on home Wi-Fi (one household in ten has two people clicking), half behind a carrier's NAT.
            let wifi = chance(0.5)
            var home = "home-\(id)"
            if wifi, !households.isEmpty, chance(0.1) { home = households.randomElement(using: &random)! }
            if wifi { households.append(home) }
            var clickAddress = wifi ? home : carrier.randomElement(using: &random)!
            if !android, chance(0.15) { clickAddress = "relay-\(id)" }  // iCloud Private Relay hides Safari's address
            // Wi-Fi users mostly install at home; a phone behind a carrier NAT often gets another address.
            let installAddress =
                wifi
                ? (chance(0.85) ? home : carrier.randomElement(using: &random)!)
                : (chance(0.5) && !clickAddress.hasPrefix("relay") ? clickAddress : carrier.randomElement(using: &random)!)
            func located(_ fingerprint: DeviceFingerprint, _ address: String) -> DeviceFingerprint {
                var located = fingerprint
                located.addressHash = address
                located.networkHash = String(address.split(separator: "-").first!)
                return located
            }
            var click = located(device, clickAddress)
            // The preview page's script measured screen and time zone for most iOS clicks (never after efr=1);
            // Android clicks go straight to Play.
            if android || !chance(0.7) {
                click.screen = nil
                click.timeZone = nil
            }
            device = located(device, installAddress)
            let clickTime = Double.random(in: 0..<86_400, using: &random)
            // Most installs come within half an hour; some hours later, past the 2-hour window.
            let delay = chance(0.9) ? Double.random(in: 60..<1800, using: &random) : Double.random(in: 1800..<14_400, using: &random)
            users.append(
                User(
                    id: id, android: android, click: click, clickTime: clickTime, installs: chance(0.6), install: device,
                    installTime: clickTime + delay, hasToken: android ? chance(0.8) : chance(0.3)))
        }
        return users
    }

    @Test func defaultMatchesAreRightAtLeast99PercentOfTheTime() {
        let users = Self.population(seed: 20_261_122, count: 6000)
        let window: TimeInterval = 7200
        var claimed: Set<Int> = []
        var returned: [String: Int] = [:]
        var correct: [String: Int] = [:]
        var matchable = 0
        // Clicks by time, so each install looks only at the last two hours, and click times per address.
        let byClickTime = users.sorted { $0.clickTime < $1.clickTime }
        let clickTimes = byClickTime.map(\.clickTime)
        let timesByAddress = Dictionary(grouping: byClickTime, by: { $0.click.addressHash! }).mapValues { $0.map(\.clickTime) }
        // The same per address, platform, OS version and device.
        func similarKey(_ user: User, _ fingerprint: DeviceFingerprint) -> String {
            "\(fingerprint.addressHash!)|\(user.android)|\(fingerprint.osVersion!)|\(fingerprint.device!)"
        }
        let timesBySimilar = Dictionary(grouping: byClickTime, by: { similarKey($0, $0.click) }).mapValues { $0.map(\.clickTime) }
        /// The index of the first time at or after `time` in sorted `times`.
        func lowerBound(_ times: [Double], _ time: Double) -> Int {
            var (low, high) = (0, times.count)
            while low < high {
                let middle = (low + high) / 2
                if times[middle] < time { low = middle + 1 } else { high = middle }
            }
            return low
        }
        for user in users.filter(\.installs).sorted(by: { $0.installTime < $1.installTime }) {
            if user.installTime - user.clickTime <= window || user.hasToken { matchable += 1 }
            if user.hasToken, !claimed.contains(user.id) {
                claimed.insert(user.id)
                returned["UNIQUE", default: 0] += 1
                correct["UNIQUE", default: 0] += 1
                continue
            }
            let first = lowerBound(clickTimes, user.installTime - window)
            let last = lowerBound(clickTimes, user.installTime.nextUp)
            let candidates = byClickTime[first..<max(first, last)].filter { other in
                other.android == user.android && !claimed.contains(other.id)
            }.map { AttributionMatcher.Candidate(id: String($0.id), createdAt: Date(timeIntervalSince1970: $0.clickTime), fingerprint: $0.click) }
            let now = Date(timeIntervalSince1970: user.installTime)
            // What the store counts: clicks of any platform, claimed or not, from the install's address today.
            func count(_ times: [Double]) -> Int {
                lowerBound(times, user.installTime.nextUp) - lowerBound(times, user.installTime - AttributionMatcher.crowdPeriod)
            }
            let activity = count(timesByAddress[user.install.addressHash!] ?? [])
            let similar = count(timesBySimilar[similarKey(user, user.install)] ?? [])
            switch AttributionMatcher.match(
                install: user.install, candidates: candidates, now: now, window: window, addressActivity: activity,
                similarActivity: similar)
            {
            case .matched(let id, let confidence, _):
                claimed.insert(Int(id)!)
                returned[confidence.rawValue, default: 0] += 1
                if Int(id)! == user.id { correct[confidence.rawValue, default: 0] += 1 }
            case .none:
                returned["none", default: 0] += 1
            }
        }
        var report = ["installs that could be matched: \(matchable)", "confidence  returned  correct  precision  recall"]
        for key in ["UNIQUE", "DEFAULT", "WEAK"] {
            let (total, right) = (returned[key] ?? 0, correct[key] ?? 0)
            report.append(
                String(
                    format: "%-10@  %8d  %7d  %8.2f%%  %5.1f%%", key as NSString, total, right,
                    total == 0 ? 100 : 100 * Double(right) / Double(total), 100 * Double(right) / Double(matchable)))
        }
        report.append("no match: \(returned["none"] ?? 0)")
        print("Attribution simulation (6,000 users, one day):\n" + report.joined(separator: "\n"))

        #expect(correct["UNIQUE"] == returned["UNIQUE"])
        let defaults = returned["DEFAULT"] ?? 0
        #expect(defaults > 200, "too few DEFAULT matches to judge")
        #expect(Double(correct["DEFAULT"] ?? 0) / Double(max(1, defaults)) >= 0.99)
    }
}
