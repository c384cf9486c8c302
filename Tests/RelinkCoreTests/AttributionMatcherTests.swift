import Foundation
import Testing

@testable import RelinkCore

@Suite("Attribution matcher")
struct AttributionMatcherTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)
    static let window: TimeInterval = 7200

    static func click(
        _ id: String, minutesAgo: Double = 10, address: String? = "A", network: String? = "NA", os: String? = "17.2",
        device: String? = "iphone", languages: [String] = ["en"], screen: String? = nil, timeZone: String? = nil
    ) -> AttributionMatcher.Candidate {
        .init(
            id: id, createdAt: now.addingTimeInterval(-minutesAgo * 60),
            fingerprint: DeviceFingerprint(
                addressHash: address, networkHash: network, ipVersion: .v4, osVersion: os, device: device, languages: languages,
                screen: screen, timeZone: timeZone))
    }

    static let install = DeviceFingerprint(
        addressHash: "A", networkHash: "NA", ipVersion: .v4, osVersion: "17.2", device: "iphone", languages: ["en"])

    static func decide(_ install: DeviceFingerprint, _ candidates: [AttributionMatcher.Candidate]) -> AttributionMatcher.Decision {
        AttributionMatcher.match(install: install, candidates: candidates, now: now, window: window)
    }

    static func decide(_ candidates: [AttributionMatcher.Candidate]) -> AttributionMatcher.Decision {
        decide(install, candidates)
    }

    /// A time zone or model holding a control character or a bidirectional override is no signal: kept, it reached
    /// `relink deferred test`'s terminal as written (a beacon's `tz` could clear it and print a fake claim).
    @Test func freeTextSignalsWithControlsOrOverridesAreDropped() {
        for text in ["Europe/Madrid", "Pixel 8", "America/Argentina/Buenos_Aires", "Etc/GMT+3", "日本"] {
            #expect(DeviceFingerprint.boundedText(text) == text)
        }
        for text in ["\u{1B}[2J", "Europe/Madrid\n", "a\u{7F}", "a\u{85}b", "\u{202E}dirdaM", "a\u{2066}b", "tab\there"] {
            #expect(DeviceFingerprint.boundedText(text) == nil, "\(text.unicodeScalars.map { $0.value })")
        }
    }

    @Test func theOnlyFittingClickFromTheAddressIsDefault() {
        guard case .matched("c1", .default, _) = Self.decide([Self.click("c1"), Self.click("other", address: "B", network: "NB")]) else {
            Issue.record("expected DEFAULT")
            return
        }
    }

    static func assess(
        _ install: DeviceFingerprint, _ candidates: [AttributionMatcher.Candidate], addressActivity: Int = 0, similarActivity: Int = 0,
        installedAt: Date? = nil
    ) -> AttributionAssessment {
        AttributionMatcher.assess(
            install: install, candidates: candidates, now: now, window: window, addressActivity: addressActivity,
            similarActivity: similarActivity, installedAt: installedAt)
    }

    static func assess(
        _ candidates: [AttributionMatcher.Candidate], addressActivity: Int = 0, similarActivity: Int = 0, installedAt: Date? = nil
    ) -> AttributionAssessment {
        assess(install, candidates, addressActivity: addressActivity, similarActivity: similarActivity, installedAt: installedAt)
    }

    static func posterior(_ assessment: AttributionAssessment, _ click: String) -> Double {
        assessment.candidates.first { $0.click == click }?.posterior ?? -1
    }

    @Test func twoFittingClicksFromOneAddressAreWeak() {
        let decision = Self.decide([Self.click("c1", minutesAgo: 20), Self.click("c2", minutesAgo: 5)])
        guard case .matched("c2", .weak, let message) = decision else {
            Issue.record("expected WEAK on the newer click, got \(decision)")
            return
        }
        #expect(message.contains("from this address") && message.contains("weak match"))
    }

    /// Same address, but another OS version, device, screen or time zone: far less likely this device's click.
    @Test func aMismatchMakesAClickUnlikely() {
        var install = Self.install
        install.screen = "390x844"
        install.timeZone = "Asia/Tokyo"
        for (other, atMost) in [
            (Self.click("x", os: "16.6"), 0.01), (Self.click("x", device: "ipad"), 0.02),
            (Self.click("x", screen: "375x667"), 0.1), (Self.click("x", timeZone: "Europe/Paris"), 0.05),
        ] {
            let assessment = Self.assess(install, [Self.click("c1"), other])
            #expect(assessment.click == "c1", "\(other.fingerprint)")
            #expect(Self.posterior(assessment, "x") < atMost, "\(other.fingerprint)")
            #expect(Self.posterior(assessment, "c1") > 10 * Self.posterior(assessment, "x"), "\(other.fingerprint)")
        }
    }

    @Test func screenAndTimeZoneTellSharedAddressesApart() {
        var install = Self.install
        install.screen = "390x844"
        install.timeZone = "Asia/Tokyo"
        let mine = Self.click("mine", screen: "390x844", timeZone: "Asia/Tokyo")
        let theirs = Self.click("theirs", screen: "430x932", timeZone: "Asia/Tokyo")
        let alike = Self.assess(install, [Self.click("mine"), Self.click("theirs")])
        let measured = Self.assess(install, [mine, theirs])
        #expect(measured.click == "mine")
        #expect(Self.posterior(measured, "mine") > Self.posterior(alike, "mine") + 0.3)
        #expect(Self.posterior(measured, "theirs") < 0.05)
        // With the time zone apart too, the measured click is the device's: DEFAULT.
        var far = theirs
        far.fingerprint.timeZone = "Europe/London"
        guard case .matched("mine", .default, _) = Self.decide(install, [mine, far]) else {
            Issue.record("expected DEFAULT")
            return
        }
    }

    /// A carrier NAT: many clicks from the address today make its one fitting click a guess, unless the preview
    /// page's screen and time zone agree too. Nothing but the model says so: the day's clicks tell how many
    /// strangers may be behind the address.
    @Test func aBusyAddressNeedsMoreEvidence() {
        let quiet = Self.assess([Self.click("fits")], addressActivity: 1, similarActivity: 1)
        let household = Self.assess([Self.click("fits")], addressActivity: 5, similarActivity: 1)
        let carrier = Self.assess([Self.click("fits")], addressActivity: 60, similarActivity: 8)
        #expect(quiet.confidence == .default)
        #expect(household.confidence == .weak)
        #expect(carrier.confidence == .weak)
        #expect(Self.posterior(quiet, "fits") > Self.posterior(household, "fits"))
        #expect(Self.posterior(household, "fits") > Self.posterior(carrier, "fits"))
        #expect(carrier.expectedStrangersAtAddress > household.expectedStrangersAtAddress)
        // Other clicks from the address that cannot be this device's count as strangers too.
        let crowd = [Self.click("fits"), Self.click("ipad", device: "ipad"), Self.click("old-os", os: "16.6")]
        guard case .matched("fits", .weak, let message) = Self.decide(crowd) else {
            Issue.record("expected WEAK")
            return
        }
        #expect(message.contains("weak match"))
        // The preview page's screen and time zone agreeing make it likelier, and sure where it is the day's only click.
        var install = Self.install
        install.screen = "390x844"
        install.timeZone = "Asia/Tokyo"
        let fits = Self.click("fits", screen: "390x844", timeZone: "Asia/Tokyo")
        let measured = Self.assess(install, [fits] + crowd.dropFirst(), addressActivity: 3, similarActivity: 1)
        #expect(Self.posterior(measured, "fits") > Self.posterior(Self.assess(crowd, addressActivity: 3, similarActivity: 1), "fits") + 0.05)
        #expect(Self.assess(install, [fits], addressActivity: 1, similarActivity: 1).confidence == .default)
    }

    @Test func aSecondSimilarDeviceAtTheAddressTodayPreventsDefault() {
        // Only one click is left, but another like it came from here today (claimed by a weak match already).
        guard
            case .matched("left", .weak, _) = AttributionMatcher.match(
                install: Self.install, candidates: [Self.click("left")], now: Self.now, window: Self.window, addressActivity: 2,
                similarActivity: 2)
        else {
            Issue.record("expected WEAK")
            return
        }
        // The click itself is not a second device: one click alike at the address is DEFAULT.
        #expect(Self.assess([Self.click("left")], addressActivity: 1, similarActivity: 1).confidence == .default)
    }

    /// The delay counts: a click a few minutes before the install is likelier its own than one near the window's end,
    /// and the app's own install time (`appInstallationTime`) measures it better than the claim's time.
    @Test func theDelayToTheInstallCounts() {
        let prompt = Self.assess([Self.click("c1", minutesAgo: 5)], addressActivity: 1, similarActivity: 1)
        let late = Self.assess([Self.click("c1", minutesAgo: 110)], addressActivity: 1, similarActivity: 1)
        #expect(prompt.confidence == .default)
        #expect(late.confidence == .weak)
        // Installed 4 minutes after the click, opened 106 minutes later: as sure as a prompt install.
        let installed = Self.assess(
            [Self.click("c1", minutesAgo: 110)], addressActivity: 1, similarActivity: 1, installedAt: Self.now.addingTimeInterval(-106 * 60))
        #expect(installed.confidence == .default)
        #expect(installed.candidates.first?.secondsBeforeInstall == 240)
        // An install time in the future is ignored, and so is one before the click: it is the claimant's word, so it
        // may make a delay shorter, never count against a click.
        let future = Self.assess(
            [Self.click("c1", minutesAgo: 110)], addressActivity: 1, similarActivity: 1, installedAt: Self.now.addingTimeInterval(3600))
        #expect(Self.posterior(future, "c1") == Self.posterior(late, "c1"))
        let before = Self.assess(
            [Self.click("c1", minutesAgo: 10)], addressActivity: 1, similarActivity: 1, installedAt: Self.now.addingTimeInterval(-60 * 60))
        #expect(
            Self.posterior(before, "c1")
                == Self.posterior(Self.assess([Self.click("c1", minutesAgo: 10)], addressActivity: 1, similarActivity: 1), "c1"))
    }

    /// The loopback attack's theft: at a shared address, a second claimant sends an install time just after one
    /// click, hoping to push the later click aside and take the first as DEFAULT. The later click is measured to the
    /// claim instead, so the made-up time buys no more than a claim right after the first click would have.
    @Test func aMadeUpInstallTimeCannotPushOtherClicksAside() {
        var install = Self.install
        install.screen = "390x844"
        let victim = Self.click("victim", minutesAgo: 140.0 / 60, screen: "390x844")
        let other = Self.click("other", minutesAgo: 5.0 / 60, screen: "393x852")
        let honest = Self.assess(install, [victim, other], addressActivity: 2, similarActivity: 2)
        let crafted = Self.assess(
            install, [victim, other], addressActivity: 2, similarActivity: 2, installedAt: victim.createdAt.addingTimeInterval(2))
        #expect(honest.confidence != .default)
        #expect(crafted.confidence != .default)
        #expect(Self.posterior(crafted, "victim") <= Self.posterior(honest, "victim") + 1e-9)
        #expect(Self.posterior(crafted, "other") >= Self.posterior(honest, "other") - 1e-9)
    }

    /// The assessment `deferred.debug` returns: every candidate, the evidence, and why others were left out.
    @Test func theAssessmentExplainsEveryCandidate() throws {
        let assessment = Self.assess(
            [
                Self.click("mine"), Self.click("ipad", device: "ipad"), Self.click("old", minutesAgo: 200),
                Self.click("far", address: "Z", network: "NZ"),
            ], addressActivity: 3, similarActivity: 1)
        #expect(assessment.candidates.map(\.click) == ["mine", "ipad", "old", "far"])
        let mine = try #require(assessment.candidates.first)
        #expect(mine.excluded == nil && mine.sameAddress)
        #expect(Set(mine.evidence.map(\.signal)) == ["address", "osVersion", "device", "language", "delay"])
        #expect(mine.evidence.first { $0.signal == "device" }?.agrees == true)
        let ipad = assessment.candidates[1]
        #expect(ipad.evidence.first { $0.signal == "device" }.map { $0.agrees == false && $0.ratio < 0.01 } == true)
        #expect(assessment.candidates[2].excluded == "older than the window")
        #expect(assessment.candidates[3].excluded == "neither the address nor its network is the install's")
        #expect(assessment.candidates[2].posterior == nil)
        let total = assessment.noneOfThem + assessment.candidates.compactMap(\.posterior).reduce(0, +)
        #expect(abs(total - 1) < 1e-9)
    }

    @Test func withoutAddressAgreementAtMostWeak() {
        let network = Self.decide([Self.click("c1", address: "Z")])
        guard case .matched("c1", .weak, let message) = network else {
            Issue.record("same network: expected WEAK, got \(network)")
            return
        }
        #expect(message.contains("network"))
    }

    /// The drain attack: a claim from an unrelated address that names the victim's OS version and device model.
    @Test func neitherAddressNorNetworkMeansNoMatchWhateverElseAgrees() {
        var relayed = Self.install
        relayed.ipVersion = .v6
        #expect(Self.decide(relayed, [Self.click("c1", address: "Z", network: "NZ")]) == .none(message: AttributionMatcher.noMatchMessage))
        var stranger = Self.install
        (stranger.addressHash, stranger.networkHash) = ("X", "NX")
        let victims = (0..<20).map { Self.click("v\($0)", minutesAgo: Double($0 + 1), address: "V\($0)", network: "NV\($0)") }
        #expect(Self.decide(stranger, victims) == .none(message: AttributionMatcher.noMatchMessage))
        var unknown = Self.install
        (unknown.addressHash, unknown.networkHash) = (nil, nil)
        #expect(Self.decide(unknown, victims) == .none(message: AttributionMatcher.noMatchMessage))
    }

    /// A click taken as WEAK can go to a DEFAULT match, never to another WEAK one.
    @Test func aWeaklyClaimedClickGoesOnlyToABetterMatch() {
        var taken = Self.click("c1")
        taken.weaklyClaimed = true
        guard case .matched("c1", .default, _) = Self.decide([taken]) else {
            Issue.record("the owner's DEFAULT match should still get the click")
            return
        }
        var other = taken
        other.fingerprint.addressHash = "Z"  // same network only: a weak match at best
        #expect(Self.decide([other]) == .none(message: AttributionMatcher.noMatchMessage))
        // Two fitting clicks from the address, the better one taken weakly: the other is the weak answer.
        var newer = Self.click("newer", minutesAgo: 1)
        newer.weaklyClaimed = true
        guard case .matched("older", .weak, _) = Self.decide([newer, Self.click("older", minutesAgo: 5)]) else {
            Issue.record("expected WEAK on the click nobody took")
            return
        }
    }

    @Test func noMatchWhenNothingFits() {
        #expect(Self.decide([]) == .none(message: AttributionMatcher.noMatchMessage))
        #expect(Self.decide([Self.click("old", minutesAgo: 121)]) == .none(message: AttributionMatcher.noMatchMessage))
        #expect(Self.decide([Self.click("c", address: "Z", network: "NZ", os: nil)]) == .none(message: AttributionMatcher.noMatchMessage))
    }

    @Test func languageDisagreementWeighsAgainstAClick() {
        let agreeing = Self.assess([Self.click("c1")], addressActivity: 2, similarActivity: 1)
        let disagreeing = Self.assess([Self.click("c1", languages: ["ja"])], addressActivity: 2, similarActivity: 1)
        #expect(Self.posterior(disagreeing, "c1") < Self.posterior(agreeing, "c1") - 0.05)
        #expect(disagreeing.confidence == .weak)
    }

    /// Candidates read only up to their bound: the address's crowd in the window stands for the ones not read, so
    /// 200 alike candidates out of 600 in the window expect 599 strangers, as reading all 600 would, not 199.
    @Test func aBoundedReadCountsTheWindowsWholeCrowd() {
        let read = (0..<200).map { Self.click("c\($0)", minutesAgo: 1 + Double($0) * 0.2) }
        let bounded = AttributionMatcher.assess(
            install: Self.install, candidates: read, now: Self.now, window: Self.window, addressActivity: 600, crowdInWindow: 600)
        let unaware = AttributionMatcher.assess(
            install: Self.install, candidates: read, now: Self.now, window: Self.window, addressActivity: 600)
        #expect(bounded.expectedStrangersAtAddress >= 599)
        #expect(unaware.expectedStrangersAtAddress < 200)
        #expect(bounded.candidates.compactMap(\.posterior).max() ?? 1 < unaware.candidates.compactMap(\.posterior).max() ?? 0)
    }

    @Test func parsesAddressesAndLanguages() throws {
        let v4 = try #require(IPAddress("203.0.113.7"))
        #expect(v4.version == .v4)
        #expect(v4.networkPrefix == [203, 0, 113])
        let mapped = try #require(IPAddress("::ffff:203.0.113.7"))
        #expect(mapped == v4)
        let v6 = try #require(IPAddress("2001:db8:85a3::8a2e:370:7334"))
        #expect(v6.version == .v6)
        #expect(v6.networkPrefix == [0x20, 0x01, 0x0d, 0xb8, 0x85, 0xa3, 0, 0])
        #expect(IPAddress("fe80::1%eth0")?.version == .v6)
        // The well-known NAT64 prefix carries an IPv4 client: its own /24, not one /64 for every such client.
        #expect(IPAddress("64:ff9b::203.0.113.7") == v4)
        #expect(IPAddress("64:ff9b::cb00:7107") == v4)
        #expect(IPAddress("64:ff9b::198.51.100.7")?.networkPrefix == [198, 51, 100])
        #expect(IPAddress("64:ff9b:1::203.0.113.7")?.version == .v6)
        #expect(IPAddress("010.0.0.255")?.bytes == [10, 0, 0, 255])
        for bad in [
            "", "1.2.3", "256.1.1.1", "1.2.3.4.5", "::1::", "2001:db8::g", "example.com", "1..2.3", ".1.2.3", "1.2.3.", "1.2.3.0004",
            "1.2.3.４", "1.2.3.4 ", "-1.2.3.4",
        ] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(LanguageList.fromAcceptLanguage("en-US,en;q=0.9,fr-CA;q=0.8,*;q=0.1") == ["en", "fr"])
        #expect(LanguageList.primary("zh_Hant_TW") == "zh")
        #expect(DeviceFingerprint.deviceFamily(modelName: "iPhone15,2", platform: .iPhone) == "iPhone")
        #expect(DeviceFingerprint.deviceFamily(modelName: "arm64", platform: .iPhone) == nil)
        #expect(DeviceFingerprint.screen(width: 2532, height: 1170) == "1170x2532")
        #expect(DeviceFingerprint.majorMinor("17.2.1") == "17.2")
    }

    /// The first two non-empty `.`-separated parts, split by byte, when the first is all ASCII digits.
    @Test(
        arguments: [
            ("17.2.1", "17.2"), ("14", "14"), ("14.", "14"), (".14", "14"), ("..14..2..3", "14.2"), ("17..2", "17.2"),
            ("17.2é.1", "17.2é"), ("17.\u{301}2", "17.\u{301}2"), ("", nil), ("...", nil), ("17_2", nil), ("a.1", nil), ("1a.2", nil),
            ("١٤.2", nil), ("14.beta", "14.beta"),
        ] as [(String, String?)])
    func majorAndMinorVersions(version: String, expected: String?) {
        #expect(DeviceFingerprint.majorMinor(version) == expected)
    }

    /// A version is kept only as long as a device model may be: a User-Agent's `Android 9999…` (tens of kilobytes in
    /// one header) or a claim's `osVersion` would otherwise be kept whole with every pending click.
    @Test func overlongVersionsAreNotKept() {
        let long = String(repeating: "9", count: DeviceFingerprint.maximumTextLength)
        #expect(DeviceFingerprint.majorMinor(long) == long)
        #expect(DeviceFingerprint.majorMinor(long + "9") == nil)
        #expect(DeviceFingerprint.majorMinor("14." + long) == nil)
        #expect(DeviceFingerprint.majorMinor("14.2." + long + long) == "14.2")
        let client = PlatformDetector.addingDeviceDetails(
            to: DetectedClient(platform: .android),
            userAgent: "Mozilla/5.0 (Linux; Android 14." + String(repeating: "9", count: 60_000) + "; Pixel 7)")
        #expect(DeviceFingerprint.majorMinor(client.osVersion) == nil)
    }
}
