import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

@Suite("Deferred deep links")
struct DeferredLinkTests {
    typealias T = TestSupport

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// A click with a client address (the app trusts forwarded headers in these tests).
    static func click(
        _ client: some TestClientProtocol, _ path: String, agent: String = T.Agent.iPhone, from address: String,
        language: String = "en-US,en;q=0.9"
    ) async throws -> TestResponse {
        var headers = T.headers(agent: agent)
        headers[forwardedFor] = address
        headers[.acceptLanguage] = language
        return try await client.execute(uri: path, method: .get, headers: headers)
    }

    static func claim(_ client: some TestClientProtocol, _ json: String, from address: String) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/installAttribution", method: .post, headers: [forwardedFor: address], body: ByteBuffer(string: json))
    }

    static func answer(_ response: TestResponse) throws -> InstallAttributionResponse {
        #expect(response.status == .ok, "\(response.status): \(response.text)")
        return try JSONDecoder().decode(InstallAttributionResponse.self, from: response.data)
    }

    /// The value of an attribute of the preview page's Open button, unescaped.
    static func attribute(_ name: String, in page: String) -> String? {
        guard let match = page.firstMatch(of: try! Regex("\(name)=\"([^\"]*)\"")) else { return nil }
        return String(match.output[1].substring!).replacingOccurrences(of: "&amp;", with: "&")
    }

    static let iPhoneClaim =
        #""bundleId": "jp.furyu.pictlink.ios", "iosVersion": "17.2", "device": {"deviceModelName": "iPhone15,2", "languageCode": "en-US", "timezone": "Asia/Tokyo", "screenResolutionWidth": 390, "screenResolutionHeight": 844}"#

    @Test func theClipboardTokenGivesUniqueOnceAndRetriesGetTheSameAnswer() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            let page = try await Self.click(client, "/?" + T.sampleQuery + "&utm_campaign=spring", from: "203.0.113.7")
            #expect(page.status == .ok)
            let token = try #require(Self.attribute("data-clipboard", in: page.text))
            #expect(token.hasSuffix("&_icp=1"))
            #expect(token.contains("rc="))
            // The app may launch on another network: the token alone decides.
            let first = try Self.answer(
                try await Self.claim(
                    client, #"{\#(Self.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "install-a"}"#, from: "192.0.2.50"))
            #expect(first.attributionConfidence == .unique)
            #expect(first.deepLink == "https://pictlink.com/myPage")
            #expect(first.utmCampaign == "spring")
            #expect(first.fallbackLink == "https://apps.apple.com/app/id000000001")
            #expect(first.requestIpVersion == "IP_V4")
            #expect(first.invitationId == "")
            #expect(first.isStrongMatchExecutable == false)

            let second = try Self.answer(
                try await Self.claim(
                    client, #"{\#(Self.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "install-b"}"#, from: "203.0.113.7"))
            #expect(second.deepLink == nil)
            #expect(second.attributionConfidence == nil)
            #expect(second.matchMessage == "This link was already claimed by another install.")

            let retry = try Self.answer(
                try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "install-a"}"#, from: "198.51.100.1"))
            #expect(retry == first)
        }
    }

    /// A retry is bound to the app that claimed first: another app of the same project sending the same install id
    /// is another install, matched afresh, and never gets the first app's link (an attack read it that way).
    @Test func aRetriedClaimIsAnsweredOnlyForTheSameApp() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            let page = try await Self.click(client, "/?" + T.sampleQuery, from: "203.0.113.7")
            let token = try #require(Self.attribute("data-clipboard", in: page.text))
            let first = try Self.answer(
                try await Self.claim(
                    client, #"{\#(Self.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "shared-id"}"#, from: "192.0.2.50"))
            #expect(first.attributionConfidence == .unique)
            let studioClaim = Self.iPhoneClaim.replacingOccurrences(of: "jp.furyu.pictlink.ios", with: "jp.furyu.pictlink.studio")
            let other = try Self.answer(
                try await Self.claim(client, #"{\#(studioClaim), "installId": "shared-id"}"#, from: "192.0.2.50"))
            #expect(other.deepLink == nil)
            #expect(other.attributionConfidence == nil)
            let retry = try Self.answer(
                try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "shared-id"}"#, from: "198.51.100.1"))
            #expect(retry == first)
        }
    }

    @Test func theSameDeviceFromTheSameAddressGetsDefault() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            _ = try await Self.click(client, "/p/42", from: "198.51.100.20")
            // Some other traffic, from other addresses and devices: a neighbour on the same /24, an iPad elsewhere.
            _ = try await Self.click(client, "/p/43", from: "198.51.100.21")
            _ = try await Self.click(client, "/p/44", agent: T.Agent.iPad, from: "198.51.100.22")
            let answer = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "b-1"}"#, from: "198.51.100.20"))
            #expect(answer.attributionConfidence == .default)
            #expect(answer.deepLink == "https://pictlink.com/product/42")
            #expect(answer.matchMessage.hasPrefix("Matched a recent click from this address: 99"))
        }
    }

    /// An iPad clicked from the same address too: not this iPhone's click, whichever came last.
    @Test func anotherDeviceAtTheAddressIsNotMistakenForThisOne() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            _ = try await Self.click(client, "/p/42", from: "198.51.100.25")
            _ = try await Self.click(client, "/p/44", agent: T.Agent.iPad, from: "198.51.100.25")
            let answer = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "b-2"}"#, from: "198.51.100.25"))
            #expect(answer.attributionConfidence == .default)
            #expect(answer.deepLink == "https://pictlink.com/product/42")
        }
    }

    @Test func twoClicksFromOneAddressNeverGiveAConfidentWrongAnswer() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            _ = try await Self.click(client, "/p/1", from: "198.51.100.30")
            _ = try await Self.click(client, "/p/2", from: "198.51.100.30")
            let first = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "c-1"}"#, from: "198.51.100.30"))
            #expect(first.attributionConfidence != .default)
            #expect(first.attributionConfidence != .unique)
            // The one left is no surer for the next install: this address is busy.
            let second = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "c-2"}"#, from: "198.51.100.30"))
            #expect(second.attributionConfidence != .default)
        }
    }

    @Test func screenAndTimeZoneFromThePreviewPageTellDevicesApart() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            let mine = try await Self.click(client, "/?" + T.sampleQuery + "&utm_content=mine", from: "198.51.100.40")
            let theirs = try await Self.click(client, "/?" + T.sampleQuery + "&utm_content=theirs", from: "198.51.100.40")
            for (page, screen) in [(mine, (390, 844)), (theirs, (430, 932))] {
                let id = try #require(Self.attribute("data-click", in: page.text))
                let path = try #require(Self.attribute("data-beacon", in: page.text))
                let beacon = try await client.execute(
                    uri: path, method: .post, headers: [HTTPField.Name("Host")!: "go.pictlink.com"],
                    body: ByteBuffer(string: #"{"c": "\#(id)", "w": \#(screen.0), "h": \#(screen.1), "tz": "Asia/Tokyo", "l": ["en-US"]}"#))
                #expect(beacon.status == .noContent)
            }
            // Two iPhones behind one address: the measured screen and time zone pick the right one, though as a guess
            // (the other person may have installed the app without a click).
            let answer = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "d-1"}"#, from: "198.51.100.40"))
            #expect(answer.attributionConfidence == .weak)
            #expect(answer.utmContent == "mine")
            // The next install from there is not given the other click as if it were sure.
            let next = try Self.answer(try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "d-2"}"#, from: "198.51.100.40"))
            #expect(next.attributionConfidence != .default)
        }
    }

    @Test func theAndroidInstallReferrerGivesUnique() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(trustForwardedHeaders: true, store: store)
        try await app.test(.router) { client in
            let minted = try await T.mint(
                "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fsale&apn=jp.furyu.pictlink.android"
                    + "&al=https%3A%2F%2Fpictlink.com%2Fapp%2Fsale&amv=42&utm_source=push",
                key: key, with: client)
            let code = minted.shortLink.split(separator: "/").last!
            let redirect = try await Self.click(client, "/\(code)", agent: T.Agent.android, from: "203.0.113.80")
            let location = try #require(redirect.location)
            let referrer = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value)
            #expect(referrer.hasPrefix("relink_click="))
            #expect(referrer.hasSuffix("&utm_source=push&amv=42"))
            let answer = try Self.answer(
                try await Self.claim(
                    client,
                    #"{"platform": "ANDROID", "bundleId": "jp.furyu.pictlink.android", "osVersion": "14", "installReferrer": "\#(referrer)", "installId": "android-1", "device": {"deviceModelName": "Pixel 7"}}"#,
                    from: "100.64.0.9"))
            #expect(answer.attributionConfidence == .unique)
            #expect(answer.deepLink == "https://pictlink.com/app/sale")  // `al` is the Android deep link
            #expect(answer.appMinimumVersion == "42")
            #expect(answer.utmSource == "push")
            // The install and first open are counted on the short link.
            let encoded = PercentEncoding.encodeQueryValue(minted.shortLink)
            let stats = try JSONDecoder().decode(
                LinkStatsResponse.self,
                from: try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=1&key=\(key)", method: .get).data)
            let counts = Dictionary(uniqueKeysWithValues: stats.linkEventStats.map { ("\($0.platform.rawValue) \($0.event.rawValue)", $0.count) })
            #expect(counts["ANDROID APP_INSTALL"] == "1")
            #expect(counts["ANDROID APP_FIRST_OPEN"] == "1")
            #expect(counts["ANDROID CLICK"] == "1")
        }
    }

    @Test func aHundredConcurrentClaimsOfOneClickHaveOneWinner() async throws {
        let store = try SQLiteStore()
        let app = try T.application(trustForwardedHeaders: true, store: store)
        let token = try await app.test(.router) { client in
            let page = try await Self.click(client, "/?" + T.sampleQuery, from: "203.0.113.90")
            return try #require(Self.attribute("data-clipboard", in: page.text))
        }
        // A new application on the same store: the click was written at shutdown. Each claim on a connection of its
        // own: the live client is one connection, which a loaded machine's timeouts may close under all 100, and
        // AsyncHTTPClient's pool queued them and timed out.
        try await T.application(trustForwardedHeaders: true, store: store).test(.live) { live in
            let port = try #require(live.port)
            let answers = try await withThrowingTaskGroup(of: InstallAttributionResponse.self) { group in
                for index in 0..<100 {
                    group.addTask {
                        // A connection the loaded test process could not keep (reset or closed before its answer) is tried
                        // again on a new one, as an app would: a claim is answered the same for the same install id.
                        var attempt = 0
                        while true {
                            attempt += 1
                            do {
                                let response = try await TestClient.withClient(host: "127.0.0.1", port: port) { client in
                                    try await client.execute(
                                        TestClient.Request(
                                            "/v1/installAttribution", method: .post, authority: "localhost",
                                            headers: [Self.forwardedFor: "10.0.\(index / 50).\(index % 50)", .contentType: "application/json"],
                                            body: ByteBuffer(
                                                string:
                                                    #"{\#(Self.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "race-\#(index)"}"#
                                            )))
                                }
                                return try JSONDecoder().decode(
                                    InstallAttributionResponse.self, from: Data((response.body ?? ByteBuffer()).readableBytesView))
                            } catch  where attempt < 5 {
                                try await Task.sleep(for: .milliseconds(100 * attempt))
                            }
                        }
                    }
                }
                return try await group.reduce(into: [InstallAttributionResponse]()) { $0.append($1) }
            }
            #expect(answers.count == 100)
            #expect(answers.filter { $0.deepLink != nil }.count == 1)
            #expect(answers.filter { $0.attributionConfidence == .unique }.count == 1)
        }
    }

    /// `countAsReopen: false` resolves a link without counting it; a route's answer carries its path parameters, decoded,
    /// also below a domain's path prefix; short and long links carry none.
    @Test func resolvingALinkCountsNothingAndGivesARoutesParameters() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            func reopen(_ json: String) async throws -> ReopenAttributionResponse {
                let response = try await client.execute(uri: "/v1/reopenAttribution", method: .post, body: ByteBuffer(string: json))
                #expect(response.status == .ok)
                return try JSONDecoder().decode(ReopenAttributionResponse.self, from: response.data)
            }
            let minted = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fr", key: key, with: client)
            let resolved = try await reopen(#"{"requestedLink": "\#(minted.shortLink)", "countAsReopen": false}"#)
            #expect(resolved.deepLink == "https://pictlink.com/r")
            #expect(resolved.routeParameters == nil)
            let encoded = PercentEncoding.encodeQueryValue(minted.shortLink)
            func reopens() async throws -> String? {
                let stats = try JSONDecoder().decode(
                    LinkStatsResponse.self,
                    from: try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=1&key=\(key)", method: .get).data)
                return stats.linkEventStats.first { $0.event == .appReOpen }?.count
            }
            #expect(try await reopens() == nil)
            _ = try await reopen(#"{"requestedLink": "\#(minted.shortLink)", "countAsReopen": true}"#)
            #expect(try await reopens() == "1")

            let route = try await reopen(#"{"requestedLink": "https://pictlink.com/links/p/a%20b%2Fc", "countAsReopen": false}"#)
            #expect(route.deepLink == "https://pictlink.com/product/a%20b%2Fc")
            #expect(route.routeParameters == ["id": "a b/c"])
            let long = try await reopen(#"{"requestedLink": "https://go.pictlink.com/?\#(T.sampleQuery)"}"#)
            #expect(long.routeParameters == nil)
        }
    }

    @Test func reopenResolvesEveryKindOfLink() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            func reopen(_ json: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/reopenAttribution", method: .post, body: ByteBuffer(string: json))
            }
            let minted = try await T.mint(
                "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fx&imv=2.1&utm_campaign=c", key: key, with: client)
            let short = try JSONDecoder().decode(
                ReopenAttributionResponse.self,
                from: try await reopen(#"{"requestedLink": "\#(minted.shortLink)", "bundle_id": "jp.furyu.pictlink.ios", "sdk_version": "1"}"#).data)
            #expect(short.deepLink == "https://pictlink.com/x")
            #expect(short.iosMinAppVersion == "2.1")
            #expect(short.utmCampaign == "c")
            let route = try JSONDecoder().decode(
                ReopenAttributionResponse.self,
                from: try await reopen(#"{"requestedLink": "https://pictlink.com/links/p/9", "bundleId": "jp.furyu.pictlink.ios"}"#).data)
            #expect(route.deepLink == "https://pictlink.com/product/9")
            let long = try JSONDecoder().decode(
                ReopenAttributionResponse.self, from: try await reopen(#"{"requestedLink": "https://go.pictlink.com/?\#(T.sampleQuery)"}"#).data)
            #expect(long.deepLink == "https://pictlink.com/myPage")
            // An Android app gets `al` when the link has one.
            let android = try JSONDecoder().decode(
                ReopenAttributionResponse.self,
                from: try await reopen(
                    #"{"requestedLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fw&al=https%3A%2F%2Fpictlink.com%2Fa", "bundleId": "jp.furyu.pictlink.android"}"#
                ).data)
            #expect(android.deepLink == "https://pictlink.com/a")

            let encoded = PercentEncoding.encodeQueryValue(minted.shortLink)
            let stats = try JSONDecoder().decode(
                LinkStatsResponse.self, from: try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=1&key=\(key)", method: .get).data)
            #expect(stats.linkEventStats.contains { $0.platform == .ios && $0.event == .appReOpen && $0.count == "1" })

            try ShortLinkAPITests.expectError(
                try await reopen(#"{"requestedLink": "https://go.pictlink.com/nope"}"#), .notFound, "NOT_FOUND", "Short URL")
            try ShortLinkAPITests.expectError(
                try await reopen(#"{"requestedLink": "https://elsewhere.example/x"}"#), .notFound, "NOT_FOUND", "not on a Relink link domain")
            try ShortLinkAPITests.expectError(
                try await reopen(#"{"requestedLink": "https://go.pictlink.com/?link=https%3A%2F%2Fevil.example%2F"}"#), .badRequest,
                "INVALID_ARGUMENT",
                "We could not match param")
            try ShortLinkAPITests.expectError(
                try await reopen(#"{"requestedLink": "\#(minted.shortLink)", "bundleId": "app.fieldnotes.ios"}"#), .forbidden, "PERMISSION_DENIED",
                "not an app")
            try ShortLinkAPITests.expectError(try await reopen(#"{}"#), .badRequest, "INVALID_ARGUMENT", "requestedLink is required")
        }
    }

    @Test func badClaimsAre4xxJSONErrors() async throws {
        let (store, _) = try await T.storeWithKey()
        let (otherKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        let app = try T.application(trustForwardedHeaders: true, store: store)
        try await app.test(.router) { client in
            let cases: [(String, HTTPResponse.Status, String)] = [
                (#"{}"#, .badRequest, "bundleId is required"),
                (#"{"bundleId": "com.unknown.app"}"#, .badRequest, "No project has an iOS app 'com.unknown.app'"),
                (#"{"bundleId": "jp.furyu.pictlink.ios", "platform": "WINDOWS"}"#, .badRequest, "platform must be IOS or ANDROID"),
                (#"{"bundleId": "jp.furyu.pictlink.ios", "installId": "has spaces"}"#, .badRequest, "installId must be"),
                (#"{"bundleId": "jp.furyu.pictlink.ios", "device": {"screenResolutionWidth": {"a": 1}}}"#, .badRequest, "Invalid JSON payload"),
                ("not json", .badRequest, "Invalid JSON payload"),
            ]
            for (json, status, message) in cases {
                try ShortLinkAPITests.expectError(try await Self.claim(client, json, from: "192.0.2.1"), status, "INVALID_ARGUMENT", message)
            }
            try ShortLinkAPITests.expectError(
                try await client.execute(
                    uri: "/v1/installAttribution?key=\(otherKey)", method: .post,
                    body: ByteBuffer(string: #"{"bundleId": "jp.furyu.pictlink.ios"}"#)),
                .forbidden, "PERMISSION_DENIED", "another project")
            // FDL's SDK sent numbers for its enums and strings for numbers; both are fine.
            let fdl = try await Self.claim(
                client,
                #"{"bundleId": "jp.furyu.pictlink.ios", "appInstallationTime": "1800000000", "retrievalMethod": 1, "visualStyle": "DEFAULT_STYLE", "device": {"screenResolutionWidth": "390"}}"#,
                from: "192.0.2.1")
            #expect(fdl.status == .ok)
        }
    }

    @Test func claimsAreRateLimitedPerAddress() async throws {
        let app = try T.application(trustForwardedHeaders: true)
        try await app.test(.router) { client in
            // Three times the burst at once.
            let burst = ClientLimiter.Endpoint.claim.defaultLimit.burst
            let statuses = try await withThrowingTaskGroup(of: HTTPResponse.Status.self) { group in
                for _ in 0..<(burst * 3) {
                    group.addTask { try await Self.claim(client, #"{"bundleId": "jp.furyu.pictlink.ios"}"#, from: "192.0.2.99").status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limited = statuses.filter { $0 == .tooManyRequests }.count
            #expect(limited == burst * 2, "\(limited) of \(burst * 3) limited")
            #expect(statuses.allSatisfy { $0 == .ok || $0 == .tooManyRequests })
            // Another address is not affected.
            #expect(try await Self.claim(client, #"{"bundleId": "jp.furyu.pictlink.ios"}"#, from: "192.0.2.100").status == .ok)
        }
    }

    @Test func rawAddressesAreNeverStoredAndOldClicksArePurged() async throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-privacy-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let store = try SQLiteStore(path: path)
        let secrets = AddressHashSecrets(current: "a test secret of some length")
        try await T.application(trustForwardedHeaders: true, store: store, addressHashSecrets: secrets).test(.router) { client in
            _ = try await Self.click(client, "/p/1", from: "203.0.113.123")
            _ = try await Self.click(client, "/p/1", agent: T.Agent.android, from: "2001:db8:1234:5678::abcd")
            _ = try await Self.claim(client, #"{\#(Self.iPhoneClaim), "installId": "p-1"}"#, from: "203.0.113.124")
        }
        let hashes = try #require(AddressHasher(secrets: secrets).hashes(of: "2001:db8:1234:5678::abcd"))
        let probe = DeviceFingerprint(addressHash: hashes.address, networkHash: hashes.network, languages: [])
        let clicks = try await store.candidateClicks(
            projectId: "pictlink", platform: .android, appId: "jp.furyu.pictlink.android", since: .distantPast, until: .distantFuture,
            fingerprint: probe, bounds: .default)
        let click = try #require(clicks.first)
        #expect(click.fingerprint.addressHash?.count == 32)
        #expect(click.fingerprint.ipVersion == .v6)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path)) + ((try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data())
        let text = String(decoding: bytes, as: UTF8.self)
        for raw in ["203.0.113.123", "203.0.113.124", "2001:db8:1234:5678::abcd", "2001:db8"] {
            #expect(!text.contains(raw), "\(raw) is stored")
        }
        // After the project's token window (24 h for pictlink), pending clicks are purged.
        let recorder = DeferredClickRecorder(store: store, configuration: T.configuration, logger: .init(label: "test"))
        await recorder.purge(now: Date().addingTimeInterval(25 * 3600))
        #expect(
            try await store.candidateClicks(
                projectId: "pictlink", platform: .android, appId: "jp.furyu.pictlink.android", since: .distantPast, until: .distantFuture,
                fingerprint: probe,
                bounds: .default
            ).isEmpty)
    }

    /// A project removed from routes.json keeps no pending clicks past the default token window: nothing else
    /// would ever delete their address hashes and device data.
    @Test func theClicksOfARemovedProjectArePurgedToo() async throws {
        let store = try SQLiteStore()
        let now = Date()
        try await store.insertPendingClicks([
            PendingClick(
                id: "gone-1", projectId: "removed-project", platform: .android, linkId: nil, requestedLink: "https://go.example/x",
                createdAt: now.addingTimeInterval(-25 * 3600),
                fingerprint: DeviceFingerprint(
                    addressHash: "a", networkHash: "n", ipVersion: .v4, osVersion: "14", device: "Pixel", languages: ["en"], screen: nil,
                    timeZone: nil))
        ])
        let recorder = DeferredClickRecorder(store: store, configuration: T.configuration, logger: .init(label: "test"))
        await recorder.purge(now: now)
        #expect(try await store.pendingClick(id: "gone-1") == nil)
        #expect(try await store.projectsWithDeferredData().isEmpty)
    }
}
