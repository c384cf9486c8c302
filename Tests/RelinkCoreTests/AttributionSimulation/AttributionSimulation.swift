import Foundation

@testable import RelinkCore

/// Runs a population's installs through a matcher in time order, taking each click once as the server does (a
/// token claims its own click; a fingerprint match takes the click it names; a weakly taken click may still go to
/// a DEFAULT match), and counts what came back.
struct AttributionSimulation {
    /// What a matcher is asked: the arguments of `AttributionMatcher.match`.
    struct Question: Sendable {
        var install: DeviceFingerprint
        var candidates: [AttributionMatcher.Candidate]
        var now: Date
        var window: TimeInterval
        var addressActivity: Int
        var similarActivity: Int
        /// The address's clicks in the window when the candidates were read only up to their bound, else 0.
        var crowdInWindow: Int
    }

    typealias Matcher = @Sendable (Question) -> AttributionMatcher.Decision

    struct Report: CustomStringConvertible, Sendable {
        var name: String
        var installs = 0
        var organic = 0
        /// Installs from a click, with a token or within the window: what UNIQUE or a fingerprint could find.
        var matchable = 0
        /// Of those, the ones without a token: what only a fingerprint could find.
        var fingerprintMatchable = 0
        /// Of those, the ones that claim from the address they clicked from: the most DEFAULT can find (the ceiling).
        var sameAddress = 0
        var returned: [AttributionConfidence: Int] = [:]
        var correct: [AttributionConfidence: Int] = [:]
        var organicDefault = 0
        var organicWeak = 0
        var none = 0

        func precision(_ confidence: AttributionConfidence) -> Double {
            let total = returned[confidence] ?? 0
            return total == 0 ? 1 : Double(correct[confidence] ?? 0) / Double(total)
        }

        /// Right answers of this confidence over the installs a fingerprint could find (for UNIQUE: over all
        /// matchable installs).
        func recall(_ confidence: AttributionConfidence) -> Double {
            let base = confidence == .unique ? matchable : fingerprintMatchable
            return Double(correct[confidence] ?? 0) / Double(max(1, base))
        }

        /// DEFAULT's recall if every install that claims from its click's address were found.
        var ceiling: Double { Double(sameAddress) / Double(max(1, fingerprintMatchable)) }

        /// Right DEFAULT answers over every install from a click, token or not (the measure of the first simulation).
        var defaultShareOfMatchable: Double { Double(correct[.default] ?? 0) / Double(max(1, matchable)) }

        var description: String {
            var lines = [
                "\(name): \(installs) installs (\(organic) organic), \(matchable) matchable, \(fingerprintMatchable) of them without a token, "
                    + "\(sameAddress) of those from the click's address (DEFAULT's ceiling \(String(format: "%.3f", ceiling)))",
                "confidence  returned  correct  precision  recall",
            ]
            for confidence in AttributionConfidence.allCases {
                lines.append(
                    String(
                        format: "%-10@  %8d  %7d  %9.3f  %6.3f", confidence.rawValue as NSString, returned[confidence] ?? 0,
                        correct[confidence] ?? 0, precision(confidence), recall(confidence)))
            }
            lines.append("organic installs given DEFAULT: \(organicDefault), WEAK: \(organicWeak); no match: \(none)")
            lines.append(String(format: "right DEFAULT answers over all matchable installs: %.3f", defaultShareOfMatchable))
            return lines.joined(separator: "\n")
        }
    }

    /// Runs `settings`' population through `matcher`, reading candidates and address activity as the store does:
    /// at most `bounds` of the latest clicks per address and per network in the window (any platform, claimed or
    /// not), then the install's platform's unclaimed ones; the day's clicks at the address counted over at most
    /// `countedClicks` of them and estimated past that (`AddressActivity`).
    static func run(
        _ settings: PopulationSettings, window: TimeInterval = 7200, bounds: CandidateBounds = .default,
        countedClicks: Int = AddressActivity.countedClicks, matcher: Matcher
    ) -> Report {
        let users = settings.users()
        var report = Report(name: settings.name)
        let clickers = users.filter { $0.click != nil }.sorted { $0.clickTime < $1.clickTime }
        // Each address's and network's clicks, oldest first, as indexes into `clickers`.
        let byAddress = Dictionary(grouping: clickers.indices, by: { clickers[$0].click!.addressHash! })
        let byNetwork = Dictionary(grouping: clickers.indices, by: { clickers[$0].click!.networkHash! })
        func similar(_ click: SimulatedUser, to user: SimulatedUser) -> Bool {
            click.android == user.android && click.click!.osVersion == user.install.osVersion && click.click!.device == user.install.device
        }
        /// The clicks of `list` made in [`from`, `to`], at most the `limit` latest, latest first.
        func latest(_ list: [Int]?, from: Double, to: Double, limit: Int) -> ArraySlice<Int> {
            guard let list else { return [] }
            var (low, high) = (0, list.count)
            while low < high {
                let middle = (low + high) / 2
                if clickers[list[middle]].clickTime <= to { low = middle + 1 } else { high = middle }
            }
            var first = low
            while first > 0, low - first < limit, clickers[list[first - 1]].clickTime >= from { first -= 1 }
            return list[first..<low].reversed()[...]
        }
        var claimed: Set<Int> = []
        var weaklyClaimed: Set<Int> = []
        for user in users.filter(\.installs).sorted(by: { $0.installTime < $1.installTime }) {
            report.installs += 1
            let organic = user.click == nil
            if organic {
                report.organic += 1
            } else if user.hasToken || user.installTime - user.clickTime <= window {
                report.matchable += 1
                if !user.hasToken {
                    report.fingerprintMatchable += 1
                    if user.click?.addressHash == user.install.addressHash { report.sameAddress += 1 }
                }
            }
            if user.hasToken {
                // The token names the click: UNIQUE, unless a DEFAULT match gave it to another install first.
                if !claimed.contains(user.id) || weaklyClaimed.contains(user.id) {
                    claimed.insert(user.id)
                    weaklyClaimed.remove(user.id)
                    report.returned[.unique, default: 0] += 1
                    report.correct[.unique, default: 0] += 1
                } else {
                    report.none += 1
                }
                continue
            }
            let from = user.installTime - window
            let read = Set(
                latest(byAddress[user.install.addressHash!], from: from, to: user.installTime, limit: bounds.perAddress)
                    + latest(byNetwork[user.install.networkHash!], from: from, to: user.installTime, limit: bounds.perNetwork))
            let candidates = read.sorted(by: >).map { clickers[$0] }.filter { other in
                other.android == user.android && (!claimed.contains(other.id) || weaklyClaimed.contains(other.id))
            }.map {
                AttributionMatcher.Candidate(
                    id: String($0.id), createdAt: Date(timeIntervalSince1970: $0.clickTime), fingerprint: $0.click!,
                    weaklyClaimed: weaklyClaimed.contains($0.id))
            }
            let counted = latest(
                byAddress[user.install.addressHash!], from: user.installTime - AttributionMatcher.crowdPeriod, to: user.installTime,
                limit: countedClicks)
            let now = Date(timeIntervalSince1970: user.installTime)
            let activity = AddressActivity(
                clicks: counted.count, similarClicks: counted.filter { similar(clickers[$0], to: user) }.count,
                recentClicks: counted.filter { clickers[$0].clickTime >= from }.count,
                oldestCounted: counted.count >= countedClicks ? counted.last.map { Date(timeIntervalSince1970: clickers[$0].clickTime) } : nil
            ).estimated(now: now, window: window)
            let question = Question(
                install: user.install, candidates: candidates, now: now, window: window, addressActivity: activity.clicks,
                similarActivity: activity.similarClicks,
                crowdInWindow: activity.recentClicks >= bounds.perAddress ? activity.recentClicks : 0)
            switch matcher(question) {
            case .matched(let id, let confidence, _):
                let clickId = Int(id)!
                claimed.insert(clickId)
                if confidence == .weak { weaklyClaimed.insert(clickId) } else { weaklyClaimed.remove(clickId) }
                report.returned[confidence, default: 0] += 1
                if clickId == user.id { report.correct[confidence, default: 0] += 1 }
                if organic && confidence == .default { report.organicDefault += 1 }
                if organic && confidence == .weak { report.organicWeak += 1 }
            case .none:
                report.none += 1
            }
        }
        return report
    }

    /// The matcher as the server calls it, with `model`'s weights.
    static func relink(_ model: AttributionModel = .calibrated) -> Matcher {
        { question in
            AttributionMatcher.match(
                install: question.install, candidates: question.candidates, now: question.now, window: question.window,
                addressActivity: question.addressActivity, similarActivity: question.similarActivity,
                crowdInWindow: question.crowdInWindow, installedAt: question.now, model: model)
        }
    }

    /// The rules before the model: the baseline.
    static let rules: Matcher = { question in
        RuleMatcher.match(
            install: question.install, candidates: question.candidates, now: question.now, window: question.window,
            addressActivity: question.addressActivity, similarActivity: question.similarActivity)
    }
}
