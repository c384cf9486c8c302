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

    @Test func theOnlyFittingClickFromTheAddressIsDefault() {
        guard case .matched("c1", .default, _) = Self.decide([Self.click("c1"), Self.click("other", address: "B", network: "NB")]) else {
            Issue.record("expected DEFAULT")
            return
        }
    }

    @Test func twoFittingClicksFromOneAddressAreWeak() {
        let decision = Self.decide([Self.click("c1", minutesAgo: 20), Self.click("c2", minutesAgo: 5)])
        guard case .matched("c2", .weak, let message) = decision else {
            Issue.record("expected WEAK on the newer click, got \(decision)")
            return
        }
        #expect(message.contains("2 recent clicks from this address"))
    }

    @Test func aMismatchRulesAClickOut() {
        // Same address, but another OS version, device, screen or time zone: not this device.
        for other in [
            Self.click("x", os: "16.6"), Self.click("x", device: "ipad"),
            Self.click("x", screen: "375x667"), Self.click("x", timeZone: "Europe/Paris"),
        ] {
            var install = Self.install
            install.screen = "390x844"
            install.timeZone = "Asia/Tokyo"
            guard case .matched("c1", .default, _) = Self.decide(install, [Self.click("c1"), other]) else {
                Issue.record("\(other.fingerprint) should have been ruled out")
                continue
            }
        }
    }

    @Test func screenAndTimeZoneTellSharedAddressesApart() {
        var install = Self.install
        install.screen = "390x844"
        install.timeZone = "Asia/Tokyo"
        let decision = Self.decide(
            install, [Self.click("mine", screen: "390x844", timeZone: "Asia/Tokyo"), Self.click("theirs", screen: "430x932", timeZone: "Asia/Tokyo")])
        guard case .matched("mine", .default, _) = decision else {
            Issue.record("expected DEFAULT, got \(decision)")
            return
        }
    }

    @Test func aCrowdedAddressNeedsScreenAndTimeZone() {
        // Three recent clicks from one address (a carrier NAT): the one that fits is only weak...
        let crowd = [Self.click("fits"), Self.click("ipad", device: "ipad"), Self.click("old-os", os: "16.6")]
        guard case .matched("fits", .weak, let message) = Self.decide(crowd) else {
            Issue.record("expected WEAK")
            return
        }
        #expect(message.contains("shared address"))
        // A busy address is also one whose other clicks today were claimed or on another platform.
        guard
            case .matched("fits", .weak, _) = AttributionMatcher.match(
                install: Self.install, candidates: [Self.click("fits")], now: Self.now, window: Self.window, addressActivity: 5)
        else {
            Issue.record("expected WEAK")
            return
        }
        // ...unless the preview page's screen and time zone agree too.
        var install = Self.install
        install.screen = "390x844"
        install.timeZone = "Asia/Tokyo"
        let measured = [Self.click("fits", screen: "390x844", timeZone: "Asia/Tokyo")] + crowd.dropFirst()
        guard case .matched("fits", .default, _) = Self.decide(install, measured) else {
            Issue.record("expected DEFAULT")
            return
        }
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

    @Test func languageDisagreementPreventsDefault() {
        guard case .matched("c1", .weak, _) = Self.decide([Self.click("c1", languages: ["ja"])]) else {
            Issue.record("expected WEAK")
            return
        }
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
        for bad in ["", "1.2.3", "256.1.1.1", "1.2.3.4.5", "::1::", "2001:db8::g", "example.com"] {
            #expect(IPAddress(bad) == nil, "\(bad)")
        }
        #expect(LanguageList.fromAcceptLanguage("en-US,en;q=0.9,fr-CA;q=0.8,*;q=0.1") == ["en", "fr"])
        #expect(LanguageList.primary("zh_Hant_TW") == "zh")
        #expect(DeviceFingerprint.deviceFamily(modelName: "iPhone15,2", platform: .iPhone) == "iPhone")
        #expect(DeviceFingerprint.deviceFamily(modelName: "arm64", platform: .iPhone) == nil)
        #expect(DeviceFingerprint.screen(width: 2532, height: 1170) == "1170x2532")
        #expect(DeviceFingerprint.majorMinor("17.2.1") == "17.2")
    }
}
