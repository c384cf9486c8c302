import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkAPI
import RelinkCore
import RelinkStore
import RelinkTestSupport
import RelinkTools
import Testing

@testable import RelinkServer

/// An email service's tracking domain hosted by Relink: its association files give the project's apps the tracking
/// paths only, and every other request reaches the service (a stand-in on loopback), which counts the click and
/// redirects to a Relink link, as it would without Relink.
@Suite struct ClickTrackingTests {
    typealias T = TestSupport
    static let trackingHost = "click.pictlink.test"

    /// The stand-in email service: records each request's path, query and forwarded headers, and answers a click
    /// with a redirect to `destination`.
    final class EmailService: Sendable {
        let seen = NIOLockedValueBox<[(target: String, host: String?, forwardedFor: String?)]>([])
        let destination = NIOLockedValueBox("https://go.pictlink.com/abc")
        /// The `CDN-Loop` of each request the service got.
        let loopMarks = NIOLockedValueBox<[String?]>([])

        func application() -> some ApplicationProtocol {
            let router = Router()
            // An answer slower than Relink waits for, and one larger than it takes (at the root: a route under /uni would
            // take that branch from the catch-all).
            router.get("/slow") { _, _ -> Response in
                try await Task.sleep(for: .seconds(15))
                return Response(status: .found, headers: [.location: "https://go.pictlink.com/late"])
            }
            router.get("/huge") { _, _ -> Response in
                let body = ByteBuffer(repeating: 0x41, count: 2 << 20)
                return Response(status: .ok, headers: [.contentType: "text/html"], body: ResponseBody(byteBuffer: body))
            }
            // A redirect to itself, each a second late: a chain that together outlasts the doctor's timeout.
            router.get("/loop") { _, _ -> Response in
                try await Task.sleep(for: .seconds(1))
                return Response(status: .found, headers: [.location: "/loop"])
            }
            // An answer that switches protocols: passed on, it would make a proxy in front of Relink tunnel the connection.
            router.get("/switch") { _, _ -> Response in
                Response(status: .switchingProtocols, headers: [.upgrade: "websocket", .connection: "Upgrade"])
            }
            // A service that hosts its own association files (Iterable, Klaviyo).
            router.get("/.well-known/apple-app-site-association") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"applinks": {"details": [{"appIDs": ["SERVICE.own.app"]}]}}"#)))
            }
            router.get("/**") { request, _ -> Response in
                self.loopMarks.withLockedValue { $0.append(request.headers[HTTPField.Name("CDN-Loop")!]) }
                self.seen.withLockedValue {
                    $0.append(
                        (
                            request.uri.path + (request.uri.query.map { "?" + $0 } ?? ""), request.head.authority,
                            request.headers[HTTPField.Name("X-Forwarded-For")!]
                        ))
                }
                return Response(status: .found, headers: [.location: self.destination.withLockedValue { $0 }, .cacheControl: "no-store"])
            }
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        }
    }

    static func relink(
        upstreamPort: Int, store: (any RelinkStore)? = nil, metrics: MetricsEndpoint = .disabled, associationFilesFromUpstream: Bool = false,
        upstreamTimeout: Duration = .seconds(60), logLines: ObservabilityTests.LogLines? = nil
    ) throws -> some ApplicationProtocol {
        var configuration = TestSupport.configuration
        let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
        configuration.projects[index].clickTracking = [
            ClickTrackingHost(
                host: trackingHost, upstream: try DomainURIPrefix("http://127.0.0.1:\(upstreamPort)"), paths: ["/uni/*"],
                associationFilesFromUpstream: associationFilesFromUpstream)
        ]
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: configuration, forwardedHeaders: TestSupport.trustingTestClient,
            logLevel: logLines == nil ? .error : .warning, store: try store ?? SQLiteStore())
        if let logLines { server.logger = logLines.logger(level: .warning) }
        // The stand-in is on loopback, which fetches refuse unless allowed (as `--fetch-allow-networks` does).
        if case .success(let networks) = IPNetwork.parseList("127.0.0.0/8") { server.fetchPolicy.allowed = networks }
        server.metrics = metrics
        // Longer than the default 5 s: a loaded machine's stand-in can take that long to answer, and only the test
        // of the timeout itself must meet it.
        server.clickTrackingTimeout = upstreamTimeout
        return try buildApplication(configuration: server)
    }

    /// Requests to the service carry Relink's `CDN-Loop` mark, and one that comes back with it (an upstream that leads
    /// back to Relink, which the configuration cannot see) is refused at once: one click went round 257 times.
    @Test func aRequestThatCameBackFromTheUpstreamIsRefused() async throws {
        let service = EmailService()
        let lines = ObservabilityTests.LogLines()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port, logLines: lines).test(.router) { client in
                func tap(_ loop: String?) async throws -> TestResponse {
                    var headers: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                    if let loop { headers[HTTPField.Name("CDN-Loop")!] = loop }
                    return try await client.execute(uri: "/uni/ls/click?upn=x", method: .get, headers: headers)
                }
                #expect(try await tap(nil).status == .found)
                #expect(try await tap("cloudflare").status == .found)
                #expect(try await tap("r elink, relinks").status == .found)
                #expect(service.loopMarks.withLockedValue { $0 } == ["relink", "relink", "relink"])
                for loop in ["relink", "cloudflare, relink; v=2", " RELINK "] {
                    let refused = try await tap(loop)
                    #expect(refused.status.code == 508, "\(loop)")
                    #expect(refused.text.contains("leads back to this server"))
                }
                #expect(service.loopMarks.withLockedValue { $0.count } == 3, "a marked request never reaches the service")
            }
        }
        // A client can send the mark at will: one line per 10 seconds, not one per request.
        #expect(lines.all.filter { $0.contains("leads back to Relink") }.count == 1, "\(lines.all)")
    }

    @Test func theTrackingDomainServesTheAppsForItsPathsAndPassesClicksToTheService() async throws {
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port).test(.router) { client in
                let host: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                // The association file: the project's apps, for the tracking paths and nothing else.
                let association = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: host)
                #expect(association.status == .ok)
                let text = String(buffer: association.body)
                #expect(text.contains(#""/" : "/uni/*""#) || text.contains(#""/": "/uni/*""#), "\(text)")
                #expect(text.contains("ABCDE12345.jp.furyu.pictlink.ios"))
                #expect(!text.contains("NOT "), "the tracking domain's file excludes nothing: it lists the tracking paths only")
                let assetLinks = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: host)
                #expect(String(buffer: assetLinks.body).contains("jp.furyu.pictlink.android"))

                // A click: the service's answer, as it gave it; the service saw the path, query and client.
                var headers = host
                headers[HTTPField.Name("X-Forwarded-For")!] = "203.0.113.7"
                let click = try await client.execute(uri: "/uni/ls/click?upn=abc%3D%3D&x=1", method: .get, headers: headers)
                #expect(click.status == .found)
                #expect(click.headers[.location] == "https://go.pictlink.com/abc")
                let seen = service.seen.withLockedValue { $0 }
                #expect(seen.count == 1)
                #expect(seen.first?.target == "/uni/ls/click?upn=abc%3D%3D&x=1")
                #expect(seen.first?.host == Self.trackingHost)
                #expect(seen.first?.forwardedFor == "203.0.113.7")
            }
        }
    }

    @Test func aRequestCannotSendTheProxyElsewhere() async throws {
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port).test(.router) { client in
                let headers: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                // A forwarded host names another host (this server trusts the test client's forwarded headers): the
                // request is that host's, and reaches no upstream.
                var forwarded = headers
                forwarded[HTTPField.Name("X-Forwarded-Host")!] = "evil.test"
                #expect(try await client.execute(uri: "/uni/ls/click", method: .get, headers: forwarded).status == .notFound)
                #expect(service.seen.withLockedValue { $0.isEmpty })
                // A path that reads as a network path reaches the configured upstream, as a path.
                let doubled = try await client.execute(uri: "//evil.test/x", method: .get, headers: headers)
                #expect(doubled.status == .found)
                #expect(service.seen.withLockedValue { $0.last?.target } == "//evil.test/x")
                #expect(service.seen.withLockedValue { $0.last?.host } == Self.trackingHost)
                // Dot segments are refused, plain or encoded.
                for path in ["/uni/../admin", "/uni/%2e%2e/admin"] {
                    let refused = try await client.execute(uri: path, method: .get, headers: headers)
                    #expect(refused.status == .badRequest, "\(path)")
                }
                #expect(service.seen.withLockedValue { $0.count } == 1)
                // The same in an app's re-open: the caller's mistake (400), not the service's outage (503).
                let reopen = try await client.execute(
                    uri: "/v1/reopenAttribution", method: .post,
                    body: ByteBuffer(string: #"{"requestedLink": "https://\#(Self.trackingHost)/uni/%2e%2e/admin"}"#))
                #expect(reopen.status == .badRequest, "\(String(buffer: reopen.body))")
                #expect(service.seen.withLockedValue { $0.count } == 1)
            }
        }
    }

    @Test(.measuresTime) func aSlowOrHugeAnswerIsCutAtTheCaps() async throws {
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            let headers: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
            try await Self.relink(upstreamPort: port, upstreamTimeout: .seconds(5)).test(.router) { client in
                let started = ContinuousClock.now
                let slow = try await client.execute(uri: "/slow", method: .get, headers: headers)
                #expect(slow.status == .gatewayTimeout)
                #expect(ContinuousClock.now - started < .seconds(12), "the answer waited for the service past its 5 s")
            }
            try await Self.relink(upstreamPort: port).test(.router) { client in
                let huge = try await client.execute(uri: "/huge", method: .get, headers: headers)
                #expect(huge.status == .badGateway)
                #expect(huge.body.readableBytes < 1 << 20)
            }
        }
    }

    @Test func anInterimAnswerIsNotPassedOnAsTheAnswer() async throws {
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port).test(.router) { client in
                let switched = try await client.execute(uri: "/switch", method: .get, headers: [HTTPField.Name("Host")!: Self.trackingHost])
                #expect(switched.status == .badGateway)
                #expect(switched.headers[.upgrade] == nil)
            }
        }
    }

    @Test func anUpstreamOnAPrivateAddressIsRefusedWithoutAnAllowance() async throws {
        var configuration = TestSupport.configuration
        let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
        configuration.projects[index].clickTracking = [
            ClickTrackingHost(host: Self.trackingHost, upstream: try DomainURIPrefix("http://10.1.2.3"), paths: ["/uni/*"])
        ]
        let app = try buildApplication(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, relink: configuration, logLevel: .error, store: try SQLiteStore()))
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/uni/ls/click?upn=1", method: .get, headers: [HTTPField.Name("Host")!: Self.trackingHost])
            #expect(response.status == .badGateway)
            // An app's re-open with a tracking URL: refused, without telling an anonymous caller where the service is.
            let reopen = try await client.execute(
                uri: "/v1/reopenAttribution", method: .post,
                body: ByteBuffer(string: #"{"requestedLink": "https://\#(Self.trackingHost)/uni/ls/click?upn=1"}"#))
            #expect(reopen.status == .serviceUnavailable)
            let message = String(buffer: reopen.body)
            #expect(!message.contains("10.1.2.3") && !message.contains("private"), "\(message)")
        }
    }

    /// The app opened by a tracking URL asks for its deep link as for any link: the service is asked once (its click),
    /// and the link it redirects to is resolved and counted as a re-open.
    @Test func anAppOpenedByATrackingURLGetsItsLinksDeepLink() async throws {
        let (store, key) = try await T.storeWithKey()
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port, store: store).test(.router) { client in
                let minted = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fmail", key: key, with: client)
                service.destination.withLockedValue { $0 = minted.shortLink }
                let response = try await client.execute(
                    uri: "/v1/reopenAttribution", method: .post, headers: [.userAgent: "Pictlink/1.0"],
                    body: ByteBuffer(
                        string:
                            #"{"requestedLink": "https://\#(Self.trackingHost)/uni/ls/click?upn=xyz", "bundleId": "jp.furyu.pictlink.ios", "installId": "mail-1"}"#
                    ))
                #expect(response.status == .ok, "\(String(buffer: response.body))")
                let answer = try JSONDecoder().decode(ReopenAttributionResponse.self, from: response.data)
                #expect(answer.deepLink == "https://pictlink.com/mail")
                #expect(service.seen.withLockedValue { $0.map(\.target) } == ["/uni/ls/click?upn=xyz"])
                let encoded = PercentEncoding.encodeQueryValue(minted.shortLink)
                let stats = try JSONDecoder().decode(
                    LinkStatsResponse.self,
                    from: try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=1&key=\(key)", method: .get).data)
                let reopens = stats.linkEventStats.filter { $0.event.rawValue == "APP_RE_OPEN" }.map(\.count)
                #expect(reopens == ["1"])
            }
        }
    }

    /// `relink doctor --url` checks a tracking domain's files as every host's: served, and as the project needs.
    @Test func theDoctorChecksTheTrackingDomainsFiles() async throws {
        var configuration = TestSupport.configuration
        let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
        configuration.projects[index].clickTracking = [
            ClickTrackingHost(host: Self.trackingHost, upstream: try DomainURIPrefix("https://sendgrid.net"), paths: ["/uni/*"])
        ]
        let project = configuration.projects[index]
        let app = try buildApplication(
            configuration: ServerConfiguration(host: "127.0.0.1", port: 0, relink: configuration, logLevel: .error, store: try SQLiteStore()))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let checks = await AppDoctor.deployment(
                "http://127.0.0.1:\(port)", project: project, onlyHost: Self.trackingHost, timeout: .seconds(60))
            #expect(checks.count >= 2, "\(checks)")
            #expect(checks.allSatisfy { $0.status != .fail }, "\(checks)")
            #expect(checks.contains { $0.subject.hasPrefix("https://\(Self.trackingHost)/") })
            // A tracking domain served with another project's paths fails.
            var other = project
            other.clickTracking[0].paths = ["/ls/click*"]
            let wrong = await AppDoctor.deployment(
                "http://127.0.0.1:\(port)", project: other, onlyHost: Self.trackingHost, timeout: .seconds(60))
            #expect(wrong.contains { $0.status == .fail }, "\(wrong)")
        }
    }

    /// `relink doctor --tracking-url`: a sample tracking URL is followed as a tap is, and must open the apps and end
    /// at a link of the project that the deployment knows.
    @Test func theDoctorFollowsASampleTrackingURLToALinkOfTheProject() async throws {
        let (store, key) = try await T.storeWithKey()
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let upstreamPort = try #require(standIn.port)
            try await Self.relink(upstreamPort: upstreamPort, store: store).test(.live) { client in
                let deployment = "http://127.0.0.1:\(try #require(client.port))"
                let minted = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fmail", key: key, with: client)
                service.destination.withLockedValue { $0 = minted.shortLink }
                var configuration = TestSupport.configuration
                let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
                configuration.projects[index].clickTracking = [
                    ClickTrackingHost(host: Self.trackingHost, upstream: try DomainURIPrefix("http://127.0.0.1:\(upstreamPort)"), paths: ["/uni/*"])
                ]
                let project = configuration.projects[index]
                let sample = "https://\(Self.trackingHost)/uni/ls/click?upn=abc"
                // The doctor's own 10 s is for a deployment far away; on loopback a loaded machine may need more.
                func follow(_ url: String) async -> [AppDoctor.Check] {
                    await AppDoctor.trackingURL(url, project: project, deployment: deployment, timeout: .seconds(60))
                }

                let good = await follow(sample)
                #expect(good.count == 2 && good.allSatisfy { $0.status == .pass }, "\(good)")
                #expect(good.last?.message.contains(minted.shortLink) == true, "\(good)")
                #expect(service.seen.withLockedValue { $0.map(\.target) } == ["/uni/ls/click?upn=abc"], "the service counted the click once")

                // A path the association files do not list: the tap would open the browser.
                let path = await follow("https://\(Self.trackingHost)/ls/click?upn=abc")
                #expect(path.first?.status == .fail && path.first?.message.contains("none of") == true, "\(path)")
                // The service sends the tap elsewhere, or to a link the deployment does not know.
                service.destination.withLockedValue { $0 = "https://evil.test/x" }
                let elsewhere = await follow(sample)
                #expect(elsewhere.last?.status == .fail && elsewhere.last?.message.contains("not a link of the project") == true, "\(elsewhere)")
                // An http link on the https domain does not open the app; a user name or password is never followed.
                service.destination.withLockedValue { $0 = minted.shortLink.replacingOccurrences(of: "https://", with: "http://") }
                let plain = await follow(sample)
                #expect(plain.last?.status == .fail && plain.last?.message.contains("not a link of the project") == true, "\(plain)")
                service.destination.withLockedValue { $0 = minted.shortLink.replacingOccurrences(of: "https://", with: "https://u:hunter3@") }
                let credentials = await follow(sample)
                #expect(credentials.last?.status == .fail && !"\(credentials)".contains("hunter3"), "\(credentials)")
                service.destination.withLockedValue { $0 = "https://go.pictlink.com/NeverMinted" }
                let unknown = await follow(sample)
                #expect(unknown.last?.status == .fail && unknown.last?.message.contains("HTTP 404") == true, "\(unknown)")
                // The service's answer is over Relink's caps, or is not a redirect.
                let huge = await follow("https://\(Self.trackingHost)/huge")
                #expect(huge.last?.status == .fail && huge.last?.message.contains("HTTP 502") == true, "\(huge)")
                service.destination.withLockedValue { $0 = "" }
                let noLocation = await follow(sample)
                #expect(noLocation.last?.status == .fail && noLocation.last?.message.contains("without a usable Location") == true, "\(noLocation)")
                // Not a tracking domain of the project, or not a URL.
                let other = await follow("https://click.other.test/uni/x")
                #expect(other.count == 1 && other[0].status == .fail, "\(other)")
                // A password is never echoed; the scheme's own port is no port.
                let secret = await follow("https://user:hunter2@\(Self.trackingHost)/uni/ls/click")
                #expect(secret.count == 1 && secret[0].status == .fail && !"\(secret)".contains("hunter2"), "\(secret)")
                service.destination.withLockedValue { $0 = minted.shortLink }
                let explicitPort = await follow("https://\(Self.trackingHost):443/uni/ls/click?upn=abc")
                #expect(explicitPort.allSatisfy { $0.status == .pass }, "\(explicitPort)")
                let notURL = await follow("click here")
                #expect(notURL.count == 1 && notURL[0].status == .fail, "\(notURL)")
            }
        }
    }

    /// What passes through a tracking domain is counted as `click_tracking` by status, and an upstream that gives no
    /// answer to pass on by reason; the association files stay `association`.
    @Test func proxiedClicksAndTheServicesFailuresAreCounted() async throws {
        typealias O = ObservabilityTests
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port, metrics: .token(O.token)).test(.router) { client in
                let host: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                _ = try await client.execute(uri: "/uni/ls/click?upn=a", method: .get, headers: host)
                _ = try await client.execute(uri: "/uni/ls/click?upn=b", method: .get, headers: host)
                _ = try await client.execute(uri: "/.well-known/assetlinks.json", method: .get, headers: host)
                #expect(try await client.execute(uri: "/huge", method: .get, headers: host).status == .badGateway)
                #expect(try await client.execute(uri: "/switch", method: .get, headers: host).status == .badGateway)
                let scrape = try await O.scrape(client)
                #expect(O.value(scrape, #"relink_requests_total{kind="click_tracking",platform="none",outcome="redirect"}"#) == 2, "\(scrape)")
                #expect(O.value(scrape, #"relink_requests_total{kind="click_tracking",platform="none",outcome="server_error"}"#) == 2)
                #expect(O.value(scrape, #"relink_requests_total{kind="association",platform="none",outcome="ok"}"#) == 1)
                #expect(O.value(scrape, #"relink_click_tracking_errors_total{reason="unreachable"}"#) == 1, "\(scrape)")
                #expect(O.value(scrape, #"relink_click_tracking_errors_total{reason="bad_answer"}"#) == 1)
            }
        }
    }

    /// The doctor asks only the project's tracking domains and links: where a service sends the tap elsewhere (an
    /// unsubscribe link, a one-time sign-in link, another site), the check fails without asking it, which would
    /// unsubscribe the tester or spend the link.
    @Test(.measuresTime) func theDoctorDoesNotFollowATrackingURLOutOfTheProject() async throws {
        let service = EmailService()
        let elsewhere = EmailService()
        try await service.application().test(.live) { standIn in
            try await elsewhere.application().test(.live) { other in
                let servicePort = try #require(standIn.port)
                let outside = "http://127.0.0.1:\(try #require(other.port))/unsubscribe?u=1"
                service.destination.withLockedValue { $0 = outside }
                var configuration = TestSupport.configuration
                let index = try #require(configuration.projects.firstIndex { $0.id == "pictlink" })
                // The service itself as the tracking domain, asked without a deployment (as after the DNS switch).
                configuration.projects[index].clickTracking = [
                    ClickTrackingHost(
                        host: "127.0.0.1:\(servicePort)", upstream: try DomainURIPrefix("http://127.0.0.1:\(servicePort)"), paths: ["/uni/*"])
                ]
                let checks = await AppDoctor.trackingURL(
                    "http://127.0.0.1:\(servicePort)/uni/ls/click?upn=abc", project: configuration.projects[index])
                #expect(checks.last?.status == .fail && checks.last?.message.contains("not a link of the project") == true, "\(checks)")
                #expect(service.seen.withLockedValue { $0.count } == 1)
                #expect(elsewhere.seen.withLockedValue { $0.map(\.target) } == [], "the doctor asked a URL outside the project")
                // The timeout covers the whole chain: a second a hop within 2.5 s is no answer in time, not 4 s.
                let slow = await AppDoctor.trackingURL(
                    "http://127.0.0.1:\(servicePort)/loop", project: configuration.projects[index], timeout: .milliseconds(2500))
                #expect(slow.last?.status == .fail && slow.last?.message.contains("no answer in") == true, "\(slow)")
            }
        }
    }

    /// Every request the service answers on a tracking domain is `click_tracking`, whatever its path looks like on a
    /// link domain (another `/.well-known/` file, the association files when they are the service's): counted as
    /// `association`, an operator would read the service's answers as Relink's own. `/healthz` and `/metrics` (with
    /// the token) stay Relink's on every host, and are counted as theirs.
    @Test func whatTheServiceAnswersIsCountedAsClickTrackingWhateverItsPath() async throws {
        typealias O = ObservabilityTests
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            for fromUpstream in [false, true] {
                try await Self.relink(upstreamPort: port, metrics: .token(O.token), associationFilesFromUpstream: fromUpstream).test(.router) {
                    client in
                    let host: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                    // The stand-in has no such file: its 404, not Relink's.
                    #expect(try await client.execute(uri: "/.well-known/security.txt", method: .get, headers: host).status == .notFound)
                    #expect(try await client.execute(uri: "/healthz", method: .get, headers: host).status == .ok)
                    var withToken = host
                    withToken[.authorization] = "Bearer \(O.token)"
                    #expect(try await client.execute(uri: "/metrics", method: .get, headers: withToken).status == .ok)
                    let file = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: host)
                    #expect(file.status == .ok)
                    #expect(String(buffer: file.body).contains("SERVICE.own.app") == fromUpstream)
                    let scrape = try await O.scrape(client)
                    let counted = { (kind: String, outcome: String) in
                        O.value(scrape, #"relink_requests_total{kind=""# + kind + #"",platform="none",outcome=""# + outcome + #""}"#)
                    }
                    #expect(counted("click_tracking", "not_found") == 1, "\(scrape)")
                    #expect(counted("click_tracking", "ok") == (fromUpstream ? 1 : 0))
                    #expect(counted("association", "ok") == (fromUpstream ? 0 : 1))
                    #expect(counted("association", "not_found") == 0)
                    #expect(counted("health", "ok") == 1)
                    #expect(counted("metrics", "ok") == 1)
                }
            }
        }
    }

    /// `"associationFiles": "upstream"`: the service's own files reach the client as the service serves them.
    @Test func aServiceThatHostsItsOwnAssociationFilesHasThemPassedThrough() async throws {
        let service = EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            try await Self.relink(upstreamPort: port, associationFilesFromUpstream: true).test(.router) { client in
                let host: HTTPFields = [HTTPField.Name("Host")!: Self.trackingHost]
                let file = try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: host)
                #expect(file.status == .ok)
                #expect(String(buffer: file.body).contains("SERVICE.own.app"), "\(String(buffer: file.body))")
                #expect(!String(buffer: file.body).contains("jp.furyu.pictlink.ios"))
                // The link domains' files stay Relink's.
                let own = try await client.execute(
                    uri: "/.well-known/apple-app-site-association", method: .get, headers: [HTTPField.Name("Host")!: "go.pictlink.com"])
                #expect(String(buffer: own.body).contains("jp.furyu.pictlink.ios"))
            }
        }
        let json = #"""
            {"projects": [{"id": "p", "domains": ["https://go.example.com"],
              "clickTracking": [{"host": "links.example.com", "upstream": "https://links.iterable.com", "paths": ["/a/*"], "associationFiles": "upstream"}]}]}
            """#
        #expect(try RelinkConfiguration(json: Data(json.utf8)).projects[0].clickTracking.first?.associationFilesFromUpstream == true)
        let wrong = json.replacingOccurrences(of: #""associationFiles": "upstream""#, with: #""associationFiles": "service""#)
        #expect(throws: (any Error).self) { try RelinkConfiguration(json: Data(wrong.utf8)) }
    }

    @Test func aPresetGivesTheServicesDocumentedPaths() throws {
        let json = #"""
            {"projects": [{"id": "p", "domains": ["https://go.example.com"],
              "clickTracking": [{"host": "click.example.com", "upstream": "https://sendgrid.net", "preset": "sendgrid"}]}]}
            """#
        let configuration = try RelinkConfiguration(json: Data(json.utf8))
        #expect(configuration.projects[0].clickTracking.first?.paths == ["/uni/*"])
        #expect(configuration.projects[0].clickTracking.first?.sendsTrackingHost == true)
    }

    @Test func forwardsAtOnceHaveACap() throws {
        var proxy = ClickTrackingProxy(
            directory: DomainDirectory(TestSupport.configuration), fetcher: SafeFetcher(policy: OutboundAddressPolicy()))
        proxy.maximumForwards = 2
        #expect(proxy.enter() && proxy.enter())
        #expect(!proxy.enter())
        proxy.leave()
        #expect(proxy.enter())
    }

    @Test func trackingPathsMatchAsAssociationFilesDo() throws {
        let tracking = ClickTrackingHost(
            host: Self.trackingHost, upstream: try DomainURIPrefix("https://sendgrid.net"), paths: ["/uni/*", "/ls/click?x"])
        #expect(tracking.isTrackingPath("/uni/ls/click"))
        #expect(tracking.isTrackingPath("/uni/"))
        #expect(!tracking.isTrackingPath("/un/ls"))
        #expect(tracking.isTrackingPath("/ls/click1x"))
        #expect(!tracking.isTrackingPath("/ls/clickx"))
        #expect(!tracking.isTrackingPath("/UNI/a"))
    }
}
