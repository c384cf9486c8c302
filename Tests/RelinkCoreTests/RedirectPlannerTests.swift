import Foundation
import PropertyBased
import Testing

@testable import RelinkCore

/// The repository's routes.json, which the planner tests use as their project configuration.
enum Fixtures {
    static let configuration: RelinkConfiguration = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        return try! RelinkConfiguration(json: try! Data(contentsOf: url))
    }()
    static let pictlink = configuration.project(id: "pictlink")!
    static let prefix = try! DomainURIPrefix("https://go.pictlink.com")
    static let context = LinkValidationContext(linkDomains: configuration.allDomains, project: pictlink)
    static let sampleQuery =
        "link=https%3A%2F%2Fpictlink.com%2FmyPage&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&ius=pictlink&isi=000000001"

    static let iPhone = DetectedClient(platform: .iPhone)
    static let iPad = DetectedClient(platform: .iPad)
    static let android = DetectedClient(platform: .android)
    static let desktop = DetectedClient(platform: .desktop)
    static let crawler = DetectedClient(platform: .crawler)

    /// What a request for `path?query` on go.pictlink.com resolves to.
    static func request(_ path: String, _ query: String? = nil, project: Project = pictlink) -> LinkRequest {
        LinkRequest.resolve(
            project: project, prefix: prefix, relativePath: Substring(path), query: query.map { Substring($0) }, context: context)
    }

    static func link(_ query: String, project: Project = pictlink) -> ResolvedLink {
        guard case .longLink(let link) = request("/", query, project: project) else { fatalError("not a long link") }
        return link
    }

    static func plan(_ query: String, _ client: DetectedClient, isHead: Bool = false, project: Project = pictlink) -> RedirectPlan {
        RedirectPlanner.plan(link(query, project: project), project: project, client: client, isHead: isHead)
    }
}

@Suite("Redirect planner")
struct RedirectPlannerTests {
    typealias F = Fixtures

    @Test func iPhoneWithoutEfrGetsThePreviewPage() throws {
        guard case .appPreview(let preview) = F.plan(F.sampleQuery, F.iPhone) else {
            Issue.record("expected the preview page")
            return
        }
        #expect(preview.appName == "Pictlink")
        #expect(preview.openURL == "https://apps.apple.com/app/id000000001")
        #expect(preview.webURL == "https://pictlink.com/myPage")
        // The project's defaults stand in for the link's missing social tags.
        #expect(preview.title == "Pictlink")
        #expect(preview.imageURL == "https://pictlink.com/og.png")
    }

    @Test func efrRedirectsStraightToTheStore() {
        #expect(F.plan(F.sampleQuery + "&efr=1", F.iPhone).redirectURL == "https://apps.apple.com/app/id000000001")
        #expect(
            F.plan(F.sampleQuery + "&efr=1&at=11l&ct=spring%20sale&mt=8&pt=42", F.iPhone).redirectURL
                == "https://apps.apple.com/app/id000000001?at=11l&ct=spring%20sale&mt=8&pt=42")
    }

    @Test func iflReplacesTheStore() {
        let plan = F.plan(F.sampleQuery + "&efr=1&ifl=https%3A%2F%2Fpictlink.com%2Fios", F.iPhone)
        #expect(plan.redirectURL == "https://pictlink.com/ios")
    }

    @Test func inAppBrowsersAlwaysGetThePreviewPage() {
        let client = DetectedClient(platform: .iPhone, inAppBrowser: "Instagram")
        guard case .appPreview(let preview) = F.plan(F.sampleQuery + "&efr=1", client) else {
            Issue.record("expected the preview page")
            return
        }
        #expect(preview.reason.contains("Instagram"))
    }

    @Test func iPadUsesItsOwnParameters() {
        let query = F.sampleQuery + "&efr=1&ipbi=jp.furyu.pictlink.studio.ipad&ipfl=https%3A%2F%2Fpictlink.com%2Fipad"
        #expect(F.plan(query, F.iPad).redirectURL == "https://pictlink.com/ipad")
        #expect(F.plan(query, F.iPhone).redirectURL == "https://apps.apple.com/app/id000000001")
        // Without iPad parameters an iPad goes where an iPhone goes.
        #expect(F.plan(F.sampleQuery + "&efr=1", F.iPad).redirectURL == "https://apps.apple.com/app/id000000001")
        guard case .appPreview(let preview) = F.plan(F.sampleQuery + "&ipbi=jp.furyu.pictlink.studio.ipad", F.iPad) else {
            Issue.record("expected the preview page")
            return
        }
        #expect(preview.appName == "Pictlink Studio")
        #expect(preview.bundleId == "jp.furyu.pictlink.studio.ipad")
    }

    @Test func withoutAnIOSAppIOSOpensTheLink() {
        #expect(F.plan("link=https%3A%2F%2Fpictlink.com%2Fa&apn=jp.furyu.pictlink.android", F.iPhone).redirectURL == "https://pictlink.com/a")
    }

    @Test func androidGoesToPlayWithTheCampaignInTheReferrer() {
        let plan = F.plan(F.sampleQuery + "&utm_source=mail&utm_campaign=spring%20sale&amv=42", F.android)
        #expect(
            plan.redirectURL
                == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Dmail%26utm_campaign%3Dspring%2520sale%26amv%3D42"
        )
        let referrer = plan.redirectURL.flatMap { URLComponents(string: $0)?.queryItems?.first { $0.name == "referrer" }?.value }
        #expect(referrer == "utm_source=mail&utm_campaign=spring%20sale&amv=42")
    }

    /// The referrer is the pairs `key=encoded value` joined by `&`, encoded again as one query value, for any bytes.
    @Test func thePlayReferrerEncodesAnyValueTwice() async {
        let values = Generator<String, Shrink.None<String>> { rng in
            let alphabet = Array("aZ09-._~ %&=+?#/é日😀\u{0}\u{7F}")
            return String((0..<Int.random(in: 0...12, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! })
        }
        await propertyCheck(count: 100, input: values, values, values) { apn, campaign, click in
            var parameters = LinkParameters()
            parameters.apn = "a" + apn
            parameters[.utmCampaign] = "c" + campaign
            parameters.amv = click.isEmpty ? nil : click
            // Only a versionCode: other values were warned about and are ignored.
            let isVersionCode = click.utf8.allSatisfy { (48...57).contains($0) } && Int32(click) != nil
            let pairs = [("relink_click", click), ("utm_campaign", "c" + campaign)] + (isVersionCode ? [("amv", click)] : [])
            let referrer = pairs.map { "\($0.0)=\(PercentEncoding.encodeComponent($0.1))" }.joined(separator: "&")
            let expected =
                "https://play.google.com/store/apps/details?id=\(PercentEncoding.encodeComponent("a" + apn))&referrer=\(PercentEncoding.encodeComponent(referrer))"
            #expect(StoreURL.playStore(parameters, extraReferrer: [("relink_click", click)]) == expected)
        }
        var bare = LinkParameters()
        bare.apn = "jp.furyu.pictlink.android"
        #expect(StoreURL.playStore(bare) == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android")
    }

    /// `amv` that is not a versionCode is warned about as ignored, and is: neither the Play referrer nor a claim's
    /// answer carries it (an app comparing it with its versionCode would fail to read it).
    @Test func anAmvThatIsNotAVersionCodeIsIgnored() {
        for amv in ["42%26x%3D%2500", "4.2", "99999999999", "%2B42", "%D9%A4%D9%A2"] {
            let query = F.sampleQuery + "&utm_source=mail&amv=" + amv
            let plan = F.plan(query, F.android)
            #expect(plan.redirectURL == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Dmail")
            let parameters = LongLink.parse("https://go.pictlink.com/?" + query).parameters
            #expect(LinkValidator.validate(parameters, prefix: nil).warnings.contains { $0.code == .notIntegerAndroidPackageMinVersion })
            let answer = DeferredLinkAnswer.matched(
                parameters: parameters, platform: .android, requestedLink: "", resolvedLink: "", confidence: .unique, message: "",
                requestIpVersion: nil)
            #expect(answer.appMinimumVersion == nil)
        }
    }

    @Test func androidGoesToAflWhenSet() {
        #expect(F.plan(F.sampleQuery + "&afl=https%3A%2F%2Fpictlink.com%2Fandroid", F.android).redirectURL == "https://pictlink.com/android")
    }

    @Test func aBadAflIsIgnored() {
        #expect(F.plan(F.sampleQuery + "&afl=market%3A%2F%2Fdetails", F.android).redirectURL?.hasPrefix("https://play.google.com/") == true)
    }

    @Test func withoutAnAndroidAppAndroidOpensTheLink() {
        #expect(F.plan("link=https%3A%2F%2Fpictlink.com%2Fa&ibi=jp.furyu.pictlink.ios", F.android).redirectURL == "https://pictlink.com/a")
    }

    @Test func desktopGoesToOflOrTheProjectsFallbackOrTheLink() {
        // pictlink has a desktop fallback; fieldnotes too. A project without one sends desktops to `link`.
        #expect(F.plan(F.sampleQuery, F.desktop).redirectURL == "https://pictlink.com")
        #expect(F.plan(F.sampleQuery + "&ofl=https%3A%2F%2Fpictlink.com%2Fdesktop", F.desktop).redirectURL == "https://pictlink.com/desktop")
        let bare = Project(id: "bare", domains: [F.prefix], allowlist: F.pictlink.allowlist)
        #expect(F.plan(F.sampleQuery, F.desktop, project: bare).redirectURL == "https://pictlink.com/myPage")
        #expect(F.plan(F.sampleQuery, DetectedClient(platform: .other), project: bare).redirectURL == "https://pictlink.com/myPage")
    }

    @Test func crawlersGetTheSocialCard() {
        guard case .socialPreview(let preview) = F.plan(F.sampleQuery + "&st=Spring&sd=Sale&si=https%3A%2F%2Fpictlink.com%2Fs.png", F.crawler)
        else {
            Issue.record("expected the social preview")
            return
        }
        #expect(
            preview
                == SocialPreview(
                    title: "Spring", description: "Sale", imageURL: "https://pictlink.com/s.png", canonicalURL: "https://pictlink.com/myPage"))
    }

    @Test func crawlersWithoutSocialTagsAreRedirectedLikeABrowser() {
        let bare = Project(id: "bare", domains: [F.prefix], allowlist: F.pictlink.allowlist)
        #expect(F.plan(F.sampleQuery, F.crawler, project: bare).redirectURL == "https://pictlink.com/myPage")
    }

    @Test func headIsTreatedLikeACrawler() {
        guard case .socialPreview = F.plan(F.sampleQuery, F.iPhone, isHead: true) else {
            Issue.record("expected the social preview")
            return
        }
    }

    @Test func forcedRedirectDefault() {
        var project = F.pictlink
        project.defaults.forcedRedirect = true
        #expect(F.plan(F.sampleQuery, F.iPhone, project: project).redirectURL == "https://apps.apple.com/app/id000000001")
        guard case .appPreview = F.plan(F.sampleQuery + "&efr=0", F.iPhone, project: project) else {
            Issue.record("a link's own efr=0 keeps the preview page")
            return
        }
    }

    @Test(arguments: ["ofl", "afl", "ifl", "ipfl", "al", "link"])
    func destinationsOutsideTheAllowlistAreRejected(parameter: String) {
        var query = F.sampleQuery
        if parameter == "link" {
            query = query.replacingOccurrences(of: "pictlink.com%2FmyPage", with: "evil.example%2F")
        } else {
            query += "&\(parameter)=https%3A%2F%2Fevil.example%2F"
        }
        guard case .rejected(let rejection) = F.plan(query, F.desktop) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.violations.map(\.parameter.name) == [parameter])
        #expect(rejection.description.hasPrefix("We could not match param 'https://evil.example/' (\(parameter)) with allowlisted URL patterns"))
        #expect(rejection.description.contains("^https://pictlink\\.com(/.*)?$"))
    }

    /// Apps receive `al` as their deep link (claims, re-opens): any scheme but http(s) is refused, not ignored as
    /// an unusable fallback would be.
    @Test(arguments: [
        "javascript%3Aalert(1)", "intent%3A%2F%2Fevil.com%2F%23Intent%3Bscheme%3Dhttps%3Bend", "otherbank%3A%2F%2Fpay", "file%3A%2F%2F%2Fdata",
    ])
    func anAndroidDeepLinkThatIsNotHTTPIsRejected(value: String) {
        guard case .rejected(let rejection) = F.plan(F.sampleQuery + "&al=" + value, F.desktop) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.violations.map(\.parameter) == [.al])
        #expect(rejection.description.contains("a deep link must be an http(s) URL"))
        // A fallback that is not http(s) is only warned about: the redirect never uses it.
        guard case .redirect = F.plan(F.sampleQuery + "&ofl=" + value, F.desktop) else {
            Issue.record("expected a redirect")
            return
        }
    }

    /// A store page the link names itself is sent as it is (never swapped for the `apn` listing) and, like
    /// Relink's own store redirects, may lead to an install; a web fallback may not.
    @Test func storePagesOfTheLinksOwnAreKeptAsTheyAre() {
        let bare = Project(id: "bare", domains: [try! DomainURIPrefix("https://bare.example/go")])
        let prefix = bare.domains[0]
        func plan(_ query: String, _ client: DetectedClient) -> RedirectPlan {
            let request = LinkRequest.resolve(project: bare, prefix: prefix, relativePath: "/", query: Substring(query), context: .init())
            guard case .longLink(let link) = request else { fatalError() }
            return RedirectPlanner.plan(link, project: bare, client: client)
        }
        let own = "https://play.google.com/store/apps/details?id=com.partner.app&referrer=utm_campaign%3Dnewsletter"
        let base = "link=https%3A%2F%2Fbare.example%2Fx&apn=com.example.app"
        let fallback = plan(base + "&afl=" + PercentEncoding.encodeQueryValue(own), F.android)
        #expect(fallback == .redirect(url: own, destination: .storePage, reason: "Android goes to 'afl' instead of Google Play."))
        #expect(fallback.mayLeadToInstall)
        #expect(RedirectPlanner.decorate(fallback, parameters: LinkParameters(), clickID: "c", claimURL: nil) == fallback)
        let listing = plan(base, F.android)
        #expect(listing.mayLeadToInstall)
        guard
            case .redirect(let url, .playStore, _) = RedirectPlanner.decorate(
                listing, parameters: LinkParameters([.apn: "com.example.app"]), clickID: "c1", claimURL: nil)
        else {
            Issue.record("expected the apn listing")
            return
        }
        #expect(url.contains("id=com.example.app") && url.contains("relink_click%3Dc1"))
        for store in ["https://itunes.apple.com/app/id1", "http://APPS.apple.com/app/id1", "https://play.google.com/x"] {
            #expect(RedirectDestination(fallbackURL: store) == .storePage, "\(store)")
        }
        #expect(RedirectDestination(fallbackURL: "https://apps.apple.com.evil.test/app") == .web)
        #expect(!plan(base + "&afl=https%3A%2F%2Fbare.example%2Fweb", F.android).mayLeadToInstall)
    }

    @Test func aProjectWithoutPatternsAllowsItsDomainsAndTheStores() {
        let bare = Project(id: "bare", domains: [try! DomainURIPrefix("https://bare.example/go")])
        let prefix = bare.domains[0]
        func plan(_ query: String) -> RedirectPlan {
            let request = LinkRequest.resolve(project: bare, prefix: prefix, relativePath: "/", query: Substring(query), context: .init())
            guard case .longLink(let link) = request else { fatalError() }
            return RedirectPlanner.plan(link, project: bare, client: F.desktop)
        }
        #expect(plan("link=https%3A%2F%2Fbare.example%2Fhome&ofl=https%3A%2F%2Fapps.apple.com%2Fapp%2Fid1").redirectURL != nil)
        guard case .rejected(let rejection) = plan("link=https%3A%2F%2Fpictlink.com%2F") else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.description.contains("only these hosts are allowed: apps.apple.com, bare.example, itunes.apple.com, play.google.com"))
    }

    @Test func invalidLinksAreRejected() {
        guard case .rejected(let rejection) = F.plan("link=javascript%3Aalert(1)", F.desktop) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.errors.map(\.code) == [.badURISchemeLink])
    }

    @Test func linksOnAnotherProjectsDomainAreRejected() {
        guard case .rejected(let rejection) = F.plan("link=https%3A%2F%2Fgo.fieldnotes.app%2Fnote", F.desktop) else {
            Issue.record("expected a rejection")
            return
        }
        #expect(rejection.errors.map(\.code) == [.linkIsDynamicLink])
    }

    @Test func debugShowsEveryPlatform() {
        let query = F.sampleQuery.replacingOccurrences(of: "isi=000000001", with: "isi=abc") + "&d=1"
        guard case .debug(let report) = F.plan(query, F.iPhone) else {
            Issue.record("expected the debug page")
            return
        }
        #expect(
            report.outcomes.map(\.scenario) == [
                "iPhone, app installed", "iPhone, app not installed", "iPad", "Android", "Desktop", "Link-preview crawler",
            ])
        #expect(report.outcomes[1].action == "Preview page, then Open")
        #expect(report.outcomes[1].destination == "https://pictlink.com/myPage")
        #expect(report.outcomes[3].destination?.hasPrefix("https://play.google.com/store/apps/details?id=") == true)
        #expect(report.outcomes[4].destination == "https://pictlink.com")
        #expect(report.warnings.map(\.code) == [.notNumericIOSAppStoreID])
    }

    @Test func debugShowsAllowlistFailuresInsteadOfRejecting() {
        guard case .debug(let report) = F.plan(F.sampleQuery + "&d=1&ofl=https%3A%2F%2Fevil.example%2F", F.desktop) else {
            Issue.record("expected the debug page")
            return
        }
        #expect(report.violations.map(\.parameter) == [.ofl])
        #expect(report.outcomes.allSatisfy { $0.action.hasPrefix("Rejected") })
    }
}

@Suite("Link requests and routes")
struct LinkRequestTests {
    typealias F = Fixtures

    @Test func routesFillInTheProjectsApps() {
        guard case .route(let link) = F.request("/p/42") else {
            Issue.record("expected a route")
            return
        }
        #expect(link.kind == .route("/p/{id}"))
        #expect(link.parameters.link == "https://pictlink.com/product/42")
        #expect(link.parameters.ibi == "jp.furyu.pictlink.ios")
        #expect(link.parameters.isi == "000000001")
        #expect(link.parameters.apn == "jp.furyu.pictlink.android")
        #expect(link.parameters.efr == "1")
        #expect(!link.isDebug)
        #expect(RedirectPlanner.plan(link, project: F.pictlink, client: F.iPhone).redirectURL == "https://apps.apple.com/app/id000000001")
    }

    @Test func routeTemplatesFillParametersWithDecodedValues() {
        guard case .route(let link) = F.request("/campaign/spring%20sale") else {
            Issue.record("expected a route")
            return
        }
        #expect(link.parameters.link == "https://pictlink.com/campaign/spring%20sale")
        #expect(link.parameters.utmCampaign == "spring sale")
        #expect(link.parameters.utmSource == "email")
    }

    @Test func aRoutesQueryIsNeverADestination() {
        guard case .route(let link) = F.request("/p/42", "link=https://evil.example/&ofl=https://evil.example/&d=1") else {
            Issue.record("expected a route")
            return
        }
        #expect(link.parameters.link == "https://pictlink.com/product/42")
        #expect(link.parameters.ofl == "https://pictlink.com")
        #expect(link.isDebug)
    }

    @Test func aValueCannotInjectAnotherPlaceholder() {
        #expect(LinkRequest.substitute("{a}-{b}", ["a": "%7Bb%7D", "b": "x"], decode: true) == "{b}-x")
    }

    @Test func shortCodesAndNothing() {
        guard case .shortLink(let code, let debug) = F.request("/Ab3x_-9", "d=1&x=2") else {
            Issue.record("expected a short link")
            return
        }
        #expect(code.value == "Ab3x_-9")
        #expect(debug)
        for path in ["/", "/a/b/c", "/a.b", "/" + String(repeating: "a", count: 65)] {
            guard case .notFound = F.request(path) else {
                Issue.record("\(path) should be not found")
                continue
            }
        }
    }

    @Test func domainDirectoryFindsTheLongestPrefix() throws {
        let configuration = RelinkConfiguration(projects: [
            Project(id: "site", domains: [try DomainURIPrefix("https://example.com")]),
            Project(id: "links", domains: [try DomainURIPrefix("https://example.com/links"), try DomainURIPrefix("http://localhost")]),
        ])
        let directory = DomainDirectory(configuration)
        #expect(directory.match(host: "example.com", path: "/links/abc")?.project.id == "links")
        #expect(directory.match(host: "example.com", path: "/links/abc")?.relativePath == "/abc")
        #expect(directory.match(host: "EXAMPLE.com", path: "/linksabc")?.project.id == "site")
        #expect(directory.match(host: "example.com", path: "/")?.project.id == "site")
        #expect(directory.match(host: "localhost:8080", path: "/x")?.project.id == "links")
        #expect(directory.match(host: "other.example", path: "/x") == nil)
        #expect(directory.servesHost("example.com:443"))
        #expect(!directory.servesHost("other.example"))
        // A short link written with its scheme's own port is the link without it; another port is another host.
        #expect(directory.shortLink("https://example.com:443/links/Ab3x")?.code.value == "Ab3x")
        #expect(directory.shortLink("https://example.com/links/Ab3x")?.project.id == "links")
        #expect(directory.shortLink("http://localhost:80/Ab3x")?.project.id == "links")
        #expect(directory.shortLink("https://example.com:8443/links/Ab3x") == nil)
        #expect(directory.shortLink("http://localhost:443/Ab3x") == nil)
    }
}
