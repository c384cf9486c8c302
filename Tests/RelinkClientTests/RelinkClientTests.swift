import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RelinkClient
import RelinkCore
import RelinkServer
import RelinkStore
import Testing

/// `RelinkClient` against a live server on a free port, as an app or the CLI would use it.
@Suite("RelinkClient")
struct RelinkClientTests {
    static let routes: RelinkConfiguration = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        return try! RelinkConfiguration(json: try! Data(contentsOf: url))
    }()

    static let android = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"

    /// Runs `body` with a live server, a client holding a fresh key, and a test client for clicks (which need a
    /// Host header that URLSession will not send).
    static func withServer(
        _ body: @Sendable (RelinkClient, any TestClientProtocol) async throws -> Void
    ) async throws {
        let store = try SQLiteStore()
        let (key, _) = try await APIKeys.create(projectId: "pictlink", name: "client-tests", in: store)
        let app = try buildApplication(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, relink: routes, logLevel: .error, store: store))
        try await app.test(.live) { client in
            let server = URL(string: "http://127.0.0.1:\(try #require(client.port))")!
            try await body(RelinkClient(server: server, apiKey: key), client)
        }
    }

    /// A click on `path` of go.pictlink.com: in absolute form, since the live client sends its own `Host: localhost`.
    static func click(_ client: any TestClientProtocol, _ path: String, agent: String) async throws -> TestResponse {
        try await client.execute(uri: "http://go.pictlink.com" + path, method: .get, headers: [.userAgent: agent])
    }

    @Test func mintsManagesAndReadsStats() async throws {
        try await Self.withServer { relink, clicks in
            let minted = try await relink.createShortLink(
                longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fclient&apn=jp.furyu.pictlink.android",
                suffix: .short)
            #expect(minted.shortLink.hasPrefix("https://go.pictlink.com/"))
            let code = String(minted.shortLink.dropFirst("https://go.pictlink.com".count))
            _ = try await Self.click(clicks, code, agent: Self.android)
            let stats = try await relink.linkStats(shortLink: minted.shortLink, durationDays: 1)
            #expect(stats.linkEventStats.contains { $0.platform == .android && $0.event == .click && $0.count == "1" })
            #expect(try await relink.links().links.map(\.shortLink) == [minted.shortLink])
            #expect(try await relink.link(minted.shortLink).suffixOption == .short)
            let disabled = try await relink.updateLink(minted.shortLink, UpdateLinkRequest(disabled: true))
            #expect(disabled.disabled)
            #expect(try await Self.click(clicks, code, agent: Self.android).status == .gone)
        }
    }

    @Test func claimsWithTheInstallReferrer() async throws {
        try await Self.withServer { relink, clicks in
            let redirect = try await Self.click(
                clicks, "/?link=https%3A%2F%2Fpictlink.com%2Fsale&apn=jp.furyu.pictlink.android&utm_campaign=sale", agent: Self.android)
            let location = try #require(redirect.headers[.location])
            let referrer = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value)
            let answer = try await relink.claimDeferredLink(
                device: .init(platform: .android, bundleId: "jp.furyu.pictlink.android", osVersion: "14", deviceModelName: "Pixel 7"),
                installId: RelinkClient.newInstallID(), installReferrer: referrer)
            #expect(answer.attributionConfidence == .unique)
            #expect(answer.deepLink == "https://pictlink.com/sale")
            #expect(answer.utmCampaign == "sale")
        }
    }

    @Test func claimsWithTheClipboardLinkAndResolvesReopens() async throws {
        try await Self.withServer { relink, clicks in
            let page = try await Self.click(
                clicks, "/?link=https%3A%2F%2Fpictlink.com%2Fhello&ibi=jp.furyu.pictlink.ios&isi=000000001", agent: Self.iPhone)
            let match = try #require(String(buffer: page.body).firstMatch(of: /data-clipboard="([^"]*)"/))
            let clipboard = String(match.1).replacingOccurrences(of: "&amp;", with: "&")
            #expect(RelinkClient.isClaimLink(clipboard))
            #expect(!RelinkClient.isClaimLink("https://go.pictlink.com/abc"))
            let device = RelinkClient.DeviceInfo(
                platform: .iOS, bundleId: "jp.furyu.pictlink.ios", osVersion: "17.2", deviceModelName: "iPhone15,2", screenWidth: 390,
                screenHeight: 844)
            let installId = RelinkClient.newInstallID()
            let answer = try await relink.claimDeferredLink(device: device, installId: installId, clipboardLink: clipboard)
            #expect(answer.attributionConfidence == .unique)
            #expect(answer.deepLink == "https://pictlink.com/hello")
            #expect(try await relink.claimDeferredLink(device: device, installId: installId) == answer)

            let reopened = try await relink.resolve("https://go.pictlink.com/p/77", bundleId: "jp.furyu.pictlink.ios")
            #expect(reopened.deepLink == "https://pictlink.com/product/77")
        }
    }

    @Test func errorsCarryTheServersStatusAndMessage() async throws {
        try await Self.withServer { relink, _ in
            var wrongKey = relink
            wrongKey.apiKey = "rl_wrong"
            do throws(RelinkClientError) {
                _ = try await wrongKey.links()
                Issue.record("expected an error")
            } catch {
                #expect(error.status == 401)
                #expect(error.apiStatus == "UNAUTHENTICATED")
                #expect(error.description.contains("API key not valid"))
            }
            do throws(RelinkClientError) {
                _ = try await relink.createShortLink(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fevil.example%2F")
                Issue.record("expected an error")
            } catch {
                #expect(error.status == 400)
                #expect(error.message.hasPrefix("We could not match param"))
            }
        }
        let unreachable = RelinkClient(server: URL(string: "http://127.0.0.1:9")!, apiKey: "k")
        do throws(RelinkClientError) {
            _ = try await unreachable.links()
            Issue.record("expected an error")
        } catch {
            #expect(error.status == nil)
            #expect(error.message.hasPrefix("cannot reach http://127.0.0.1:9"))
        }
    }

    @Test func buildsFDLsCallbackURL() throws {
        var answer = InstallAttributionResponse(
            deepLink: "https://pictlink.com/p?a=1&b=2", attributionConfidence: .default, matchMessage: "ok", utmSource: "mail",
            appMinimumVersion: "2.0", requestIpVersion: "IP_V4")
        let url = try #require(answer.callbackURL(scheme: "pictlink"))
        #expect(
            url.absoluteString
                == "pictlink://google/link/?deep_link_id=https%3A%2F%2Fpictlink.com%2Fp%3Fa%3D1%26b%3D2&match_type=default&utm_source=mail&imv=2.0&match_message=ok&request_ip_version=IP_V4"
        )
        answer.deepLink = nil
        answer.attributionConfidence = nil
        #expect(answer.callbackURL(scheme: "pictlink")?.absoluteString == "pictlink://google/link/?dismiss=1&is_weak_match=1")
    }
}
