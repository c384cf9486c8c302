import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// Testing deferred links on a device: `deferred.debug` answers claims with the evidence (never with click ids),
/// and `GET /v1/{shortLink}/deferredClicks` shows a link's kept clicks and their claims to its project's key.
@Suite("Deferred-link debugging")
struct DeferredDebugTests {
    typealias T = TestSupport
    typealias D = DeferredLinkTests

    static func configuration(debug: Bool) -> RelinkConfiguration {
        var configuration = T.configuration
        for index in configuration.projects.indices { configuration.projects[index].deferred.debug = debug }
        return configuration
    }

    static func application(debug: Bool, store: (any RelinkStore)? = nil) throws -> some ApplicationProtocol {
        try T.application(configuration(debug: debug), trustForwardedHeaders: true, store: store)
    }

    /// The `debug` object of a raw answer.
    static func debugObject(_ response: TestResponse) throws -> [String: Any]? {
        try (JSONSerialization.jsonObject(with: response.data) as? [String: Any])?["debug"] as? [String: Any]
    }

    @Test func withoutTheSettingAnswersCarryNoDebug() async throws {
        try await Self.application(debug: false).test(.router) { client in
            _ = try await D.click(client, "/p/42", from: "198.51.100.20")
            let response = try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "n-1"}"#, from: "198.51.100.20")
            #expect(try D.answer(response).attributionConfidence == .default)
            #expect(try Self.debugObject(response) == nil)
            #expect(!response.text.contains("debug"))
        }
    }

    @Test func aFingerprintClaimExplainsEveryCandidateWithoutTheirIds() async throws {
        try await Self.application(debug: true).test(.router) { client in
            // Two alike iPhones and an iPad at one address, and a click from elsewhere on its network.
            var ids: [String] = []
            for (content, agent, address) in [
                ("a", T.Agent.iPhone, "198.51.100.30"), ("b", T.Agent.iPhone, "198.51.100.30"), ("c", T.Agent.iPad, "198.51.100.30"),
                ("d", T.Agent.iPhone, "198.51.100.31"),
            ] {
                let page = try await D.click(client, "/?" + T.sampleQuery + "&utm_content=\(content)", agent: agent, from: address)
                ids.append(try #require(D.attribute("data-click", in: page.text)))
            }
            let installedAt = Int(Date().timeIntervalSince1970) - 30
            let response = try await D.claim(
                client, #"{\#(D.iPhoneClaim), "installId": "d-1", "appInstallationTime": \#(installedAt)}"#, from: "198.51.100.30")
            let answer = try D.answer(response)
            #expect(answer.attributionConfidence == .weak)
            let debug = try #require(answer.debug)
            #expect(debug.method == "fingerprint")
            #expect(debug.note.contains("4 of 4 recent clicks"))
            let install = try #require(debug.install)
            #expect(install.addressKnown && install.osVersion == "17.2" && install.device == "iphone" && install.screen == "390x844")
            #expect(install.timeZone == "Asia/Tokyo" && install.windowSeconds == 7200)
            #expect((29...40).contains(install.installedSecondsBeforeClaim ?? -1))
            let assessment = try #require(debug.assessment)
            #expect(assessment.candidates.map(\.click) == ["#1", "#2", "#3", "#4"])
            #expect(assessment.click == "#1" && assessment.confidence == .weak)
            #expect(assessment.candidates.filter(\.sameAddress).count == 3)
            let iPad = try #require(assessment.candidates.first { $0.evidence.contains { $0.signal == "device" && $0.agrees == false } })
            #expect((iPad.posterior ?? 1) < 0.01)
            // The clicks were made before the install time the app sent: the delay is measured to it.
            #expect(assessment.candidates.allSatisfy { $0.secondsBeforeInstall <= 0 })
            // Claim tokens are never handed out, whatever the debug answer shows.
            for id in ids { #expect(!response.text.contains(id)) }

            // The same install asking again gets the same answer; the debug part is not kept (it can be large).
            let again = try D.answer(try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "d-1"}"#, from: "198.51.100.30"))
            var expected = answer
            expected.debug = nil
            #expect(again == expected)
        }
    }

    /// The loopback attack's leak: someone opens their clipboard claim link in the browser. That click's link must
    /// not carry their token into the answer of whoever's install is matched to it.
    @Test func aClaimLinkOpenedInTheBrowserHandsOutNoToken() async throws {
        try await Self.application(debug: true).test(.router) { client in
            let page = try await D.click(client, "/?" + T.sampleQuery, from: "198.51.100.50")
            let token = try #require(D.attribute("data-clipboard", in: page.text))
            let id = try #require(D.attribute("data-click", in: page.text))
            let path = String(token.dropFirst("https://go.pictlink.com".count))
            let reopened = try await D.click(client, path, from: "198.51.100.50")
            // The new click's own claim link names the new click only.
            let second = try #require(D.attribute("data-clipboard", in: reopened.text))
            #expect(!second.contains(id))
            #expect(second.components(separatedBy: "rc=").count == 2)
            for install in ["t-1", "t-2"] {
                let response = try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "\#(install)"}"#, from: "198.51.100.51")
                #expect(response.status == .ok)
                #expect(!response.text.contains(id), "\(response.text)")
                #expect(!response.text.contains("_icp"))
            }
        }
    }

    @Test func oversizedTextSignalsAreDropped() async throws {
        try await Self.application(debug: true).test(.router) { client in
            let zone = String(repeating: "Z", count: 30_000)
            let model = String(repeating: "M", count: 65)
            let response = try await D.claim(
                client,
                #"{"platform": "ANDROID", "bundleId": "jp.furyu.pictlink.android", "osVersion": "14", "installId": "z-1", "device": {"deviceModelName": "\#(model)", "timezone": "\#(zone)"}}"#,
                from: "192.0.2.80")
            let debug = try #require(try D.answer(response).debug)
            #expect(debug.install?.timeZone == nil && debug.install?.device == nil)
            #expect(response.data.count < 2000)
        }
    }

    @Test func noCandidateAndTokenClaimsSaySo() async throws {
        try await Self.application(debug: true).test(.router) { client in
            let nothing = try D.answer(try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "e-1"}"#, from: "192.0.2.77"))
            #expect(nothing.deepLink == nil)
            #expect(nothing.debug?.method == "fingerprint")
            #expect(nothing.debug?.note.hasPrefix("No click of this app came from this device's address or network") == true)
            #expect(nothing.debug?.assessment?.candidates.isEmpty == true)

            let page = try await D.click(client, "/?" + T.sampleQuery, from: "203.0.113.9")
            let token = try #require(D.attribute("data-clipboard", in: page.text))
            let unique = try D.answer(
                try await D.claim(client, #"{\#(D.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "e-2"}"#, from: "192.0.2.78"))
            #expect(unique.attributionConfidence == .unique)
            #expect(unique.debug?.method == "token")
            #expect(unique.debug?.assessment == nil)
        }
    }

    @Test func aLinksKeptClicksAndTheirClaimsAreListedForItsProject() async throws {
        let (store, key) = try await T.storeWithKey()
        let (otherKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: "other", in: store)
        try await Self.application(debug: false, store: store).test(.router) { client in
            let minted = try await T.mint("https://go.pictlink.com/?" + T.sampleQuery, key: key, with: client)
            let path = try #require(URL(string: minted.shortLink)?.path)
            let encoded = PercentEncoding.encodeQueryValue(minted.shortLink)
            func list(_ query: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/\(encoded)/deferredClicks?\(query)", method: .get)
            }
            let empty = try await list("key=\(key)")
            #expect(empty.status == .ok)
            #expect(try JSONDecoder().decode(DeferredClicksResponse.self, from: empty.data).clicks.isEmpty)

            _ = try await D.click(client, path, from: "198.51.100.60")
            _ = try await D.click(client, path, agent: T.Agent.desktop, from: "198.51.100.61")  // not kept: no install follows
            let claimed = try D.answer(try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "l-1"}"#, from: "198.51.100.60"))
            #expect(claimed.attributionConfidence == .default)

            let listed = try await list("key=\(key)&limit=5")
            #expect(listed.status == .ok, "\(listed.text)")
            let clicks = try JSONDecoder().decode(DeferredClicksResponse.self, from: listed.data).clicks
            #expect(clicks.count == 1)
            let click = try #require(clicks.first)
            #expect(click.platform == .iOS && click.device == "iphone" && click.osVersion == "17.2" && click.languages == ["en"])
            #expect(click.confidence == .default && click.claimedAt != nil)
            #expect(click.ref.count == 12 && click.ref.allSatisfy(\.isHexDigit))
            #expect(APITime.parse(click.clickedAt) != nil)
            // Neither the click's id nor its address's hash leaves the server.
            #expect(!listed.text.contains("address") && !listed.text.contains("\"id\""))

            #expect(try await list("").status == .unauthorized)
            let other = try await list("key=\(otherKey)")
            #expect(other.status == .forbidden, "\(other.text)")
            for bad in ["0", "101", "x"] {
                let response = try await list("key=\(key)&limit=\(bad)")
                #expect(response.status == .badRequest)
                #expect(response.text.contains("INVALID_ARGUMENT"))
            }
            let unknown = try await client.execute(
                uri: "/v1/\(PercentEncoding.encodeQueryValue("https://go.pictlink.com/nope"))/deferredClicks?key=\(key)", method: .get)
            #expect(unknown.status == .notFound)
        }
    }
}
