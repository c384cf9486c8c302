import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkClient
import RelinkCore
import RelinkServer
import RelinkStore
import RelinkTestSupport
import Testing

/// clients/conformance's scenarios, run by the Swift client (`Relink`) against a live server, through a fault proxy
/// that gives each request the device's address and answers armed faults: the Java and JavaScript suites run the same
/// files and must give the same answers (clients/conformance/README.md).
@Suite("Client conformance")
struct ClientConformanceTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../clients/conformance")

    static let scenarioFiles: [String] = {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.appending(path: "scenarios").path)) ?? []
        return names.filter { $0.hasSuffix(".json") }.sorted()
    }()

    @Test func everyScenarioFileIsFound() {
        #expect(Self.scenarioFiles.count >= 12)
    }

    /// Measures time: a scenario's client times out (1 s) before a held answer (2.5 s) comes.
    @Test(.measuresTime, arguments: scenarioFiles)
    func scenario(_ file: String) async throws {
        let data = try Data(contentsOf: Self.folder.appending(path: "scenarios").appending(path: file))
        #expect(try ConformanceScenario.unknownKeys(in: data) == [], "keys clients/conformance/README.md does not define")
        let scenario = try JSONDecoder().decode(ConformanceScenario.self, from: data)
        let links = try JSONDecoder().decode(ConformanceLinks.self, from: Data(contentsOf: Self.folder.appending(path: "links.json")))
        let emailService = StandInEmailService()
        try await emailService.application().test(.live) { emailServiceClient in
            // routes.json's click-tracking host leads to the email service, on loopback, which fetches refuse unless
            // allowed (start-server.sh passes --fetch-allow-networks 127.0.0.1/32).
            let routesText = try String(contentsOf: Self.folder.appending(path: "routes.json"), encoding: .utf8)
                .replacingOccurrences(of: "{{emailService}}", with: "http://127.0.0.1:\(try #require(emailServiceClient.port))")
            let routes = try RelinkConfiguration(json: Data(routesText.utf8))
            let store = try SQLiteStore()
            let (key, _) = try await APIKeys.create(projectId: "conformance", name: "conformance", in: store)
            var configuration = ServerConfiguration(
                host: "127.0.0.1", port: 0, relink: routes, forwardedHeaders: .trusting(TrustedProxies(), header: .forwarded),
                logLevel: .error, store: store)
            configuration.fetchPolicy.allowed = try IPNetwork.parseList("127.0.0.1/32").get()
            try await buildApplication(configuration: configuration).test(.live) { upstream in
                let serverURL = URL(string: "http://127.0.0.1:\(try #require(upstream.port))")!
                let minting = RelinkClient(server: serverURL, apiKey: key)
                for link in links.shortLinks {
                    _ = try await minting.createShortLink(longDynamicLink: link.longLink, suffix: .custom, customSuffix: link.slug)
                }
                let proxy = FaultProxy(upstream: upstream)
                let router = Router()
                router.add(middleware: proxy)
                let proxyApp = Application(
                    router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "proxy"))
                try await proxyApp.test(.live) { proxyClient in
                    let proxyURL = "http://127.0.0.1:\(try #require(proxyClient.port))"
                    var runner = ConformanceRunner(
                        scenario: scenario, upstream: upstream, proxy: proxy,
                        server: URL(string: scenario.serverDown == true ? "http://127.0.0.1:1" : proxyURL)!,
                        canary: proxyURL + FaultProxy.canaryPrefix, emailService: emailService, stats: minting)
                    try await runner.run()
                }
            }
        }
    }
}

/// Runs one scenario's steps with one storage, as one install's launches.
struct ConformanceRunner {
    let scenario: ConformanceScenario
    let upstream: any TestClientProtocol
    let proxy: FaultProxy
    let server: URL
    let canary: String
    let emailService: StandInEmailService
    /// The server's API with its key: `reopens` reads a link's stats.
    let stats: RelinkClient
    let storage = MemoryStorage()
    var variables: [String: String] = [:]

    init(
        scenario: ConformanceScenario, upstream: any TestClientProtocol, proxy: FaultProxy, server: URL, canary: String,
        emailService: StandInEmailService, stats: RelinkClient
    ) {
        self.scenario = scenario
        self.upstream = upstream
        self.proxy = proxy
        self.server = server
        self.canary = canary
        self.emailService = emailService
        self.stats = stats
        variables["canary"] = canary
    }

    /// The link's `APP_RE_OPEN` events, all platforms.
    func reopenCount(of link: String) async throws -> Int {
        let answer = try await stats.linkStats(shortLink: link, durationDays: 1)
        return answer.linkEventStats.filter { $0.event == .appReOpen }.reduce(0) { $0 + (Int($1.count) ?? 0) }
    }

    func makeClient(_ client: ConformanceScenario.ClientOptions?) -> Relink {
        let options = Relink.Options(
            timeout: client?.timeoutMs.map { Double($0) / 1000 } ?? 10, retryBudget: client?.retryBudgetMs.map { Double($0) / 1000 } ?? 10)
        return Relink(
            server: server, platform: AppPlatform(rawValue: scenario.platform)!, appId: "test.relink.shop", storage: storage, options: options)
    }

    func fill(_ text: String?) -> String? {
        guard var text else { return nil }
        for (name, value) in variables { text = text.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return text
    }

    mutating func run() async throws {
        var options = scenario.client
        var client = makeClient(options)
        for (index, step) in scenario.steps.enumerated() {
            let context = "\(scenario.description) — step \(index + 1)"
            if step.relaunch == true {
                options = step.client ?? options
                client = makeClient(options)
                continue
            }
            if let click = step.click {
                try await self.click(click, step: step, context: context)
                continue
            }
            await proxy.arm(
                (step.faults ?? []).map { fault in
                    var fault = fault
                    fault.headers = fault.headers?.mapValues { fill($0) ?? $0 }
                    return fault
                })
            let before = await proxy.requestCount
            let clicksBefore = emailService.clickCount
            var reopensBefore: Int?
            if let reopens = step.expect?.reopens { reopensBefore = try await reopenCount(of: reopens.link) }
            let outcome: ConformanceOutcome
            if let claim = step.claim {
                await proxy.setAddress(claim.address)
                let device = claim.device
                let result = await client.claimDeferredLink(
                    ClaimRequest(
                        device: DeviceSignals(
                            osVersion: device?.osVersion, deviceModelName: device?.deviceModelName, screenWidth: device?.screenWidth,
                            screenHeight: device?.screenHeight, languageCode: device?.languageCode, timeZone: device?.timeZone,
                            installedAt: device?.installedAt.map { Date(timeIntervalSince1970: TimeInterval($0)) }),
                        installReferrer: fill(claim.installReferrer), clipboardLink: fill(claim.clipboardLink)))
                outcome = ConformanceOutcome(result)
            } else if let call = step.reopen ?? step.resolve {
                await proxy.setAddress(call.address)
                let url = fill(call.url) ?? ""
                outcome = ConformanceOutcome(step.reopen != nil ? await client.reopen(url) : await client.resolve(url))
            } else {
                Issue.record("\(context): a step without a click, relaunch, claim, reopen or resolve")
                continue
            }
            try await proxy.awaitForwarded()
            let expect = try #require(step.expect, "\(context)")
            outcome.check(against: expect, context: context)
            if let requests = expect.requests {
                #expect(await proxy.requestCount - before == requests, "\(context)")
            }
            if expect.sameInstallId == true {
                let ids = await proxy.claimInstallIds
                #expect(!ids.isEmpty && Set(ids).count == 1, "\(context): install ids sent: \(ids)")
            }
            if let canaryRequests = expect.canaryRequests {
                #expect(await proxy.canaryCount == canaryRequests, "\(context)")
            }
            if let clicks = expect.emailServiceClicks {
                #expect(emailService.clickCount - clicksBefore == clicks, "\(context): clicks the email service counted")
            }
            if let reopens = expect.reopens, let reopensBefore {
                #expect(try await reopenCount(of: reopens.link) - reopensBefore == reopens.count, "\(context): re-opens of \(reopens.link)")
            }
        }
    }

    mutating func click(_ click: ConformanceScenario.Click, step: ConformanceScenario.Step, context: String) async throws {
        let forwarded = HTTPField.Name("Forwarded")!
        var headers: HTTPFields = [.userAgent: click.userAgent, forwarded: "for=\(click.address);host=go.relink.test;proto=https"]
        if let language = click.acceptLanguage { headers[.acceptLanguage] = language }
        let response = try await upstream.execute(uri: click.path, method: .get, headers: headers)
        let location = response.headers[.location] ?? ""
        if let status = step.expect?.status { #expect(Int(response.status.code) == status, "\(context)") }
        if let prefix = step.expect?.locationStartsWith { #expect(location.hasPrefix(prefix), "\(context): Location: \(location)") }
        if let name = step.saveReferrerAs {
            let referrer = URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value
            let value: String = try #require(referrer, "\(context): no referrer in \(location)")
            variables[name] = value
        }
    }
}

/// A client answer, flattened to what scenarios compare.
struct ConformanceOutcome {
    var result: String
    var deepLink: String?
    var confidence: String?
    var utm: [String: String?] = [:]
    var routeParameters: [String: String]?
    var error: RelinkError?

    init(_ claim: ClaimResult) {
        switch claim {
        case .matched(let link):
            result = "matched"
            deepLink = link.deepLink
            confidence = link.confidence.rawValue
            utm = Self.utm(link.utmSource, link.utmMedium, link.utmCampaign, link.utmContent, link.utmTerm)
        case .organic: result = "organic"
        case .alreadyClaimed: result = "alreadyClaimed"
        case .failed(let failure):
            result = "failed"
            error = failure
        }
    }

    init(_ link: LinkResult) {
        switch link {
        case .resolved(let resolved):
            result = "resolved"
            deepLink = resolved.deepLink
            routeParameters = resolved.routeParameters
            utm = Self.utm(resolved.utmSource, resolved.utmMedium, resolved.utmCampaign, resolved.utmContent, resolved.utmTerm)
        case .failed(let failure):
            result = "failed"
            error = failure
        }
    }

    static func utm(_ source: String?, _ medium: String?, _ campaign: String?, _ content: String?, _ term: String?) -> [String: String?] {
        ["utmSource": source, "utmMedium": medium, "utmCampaign": campaign, "utmContent": content, "utmTerm": term]
    }

    func check(against expect: ConformanceScenario.Expect, context: String) {
        #expect(result == expect.result, "\(context): error: \(String(describing: error))")
        if let deepLink = expect.deepLink { #expect(self.deepLink == deepLink, "\(context)") }
        if let confidence = expect.confidence { #expect(self.confidence == confidence, "\(context)") }
        for (name, value) in expect.utm { #expect(utm[name] ?? nil == value, "\(context): \(name)") }
        if let routeParameters = expect.routeParameters { #expect(self.routeParameters == routeParameters, "\(context)") }
        if let expected = expect.error {
            #expect(error?.kind.rawValue == expected.kind, "\(context): \(String(describing: error))")
            if let status = expected.status { #expect(error?.status == status, "\(context)") }
            if let apiStatus = expected.apiStatus { #expect(error?.apiStatus == apiStatus, "\(context)") }
            if let seconds = expected.retryAfterSeconds { #expect(error?.retryAfterSeconds == seconds, "\(context)") }
        }
    }
}
