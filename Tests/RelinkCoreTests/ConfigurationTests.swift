import Foundation
import Testing

@testable import RelinkCore

@Suite("routes.json")
struct ConfigurationTests {
    /// The problems a configuration has, as the lines `relink config check` prints.
    static func problems(_ json: String) -> [String] {
        do {
            _ = try RelinkConfiguration(json: Data(json.utf8))
            return []
        } catch {
            return error.problems.map(\.description)
        }
    }

    /// A configuration with one project whose members are `members` (JSON object members, without braces).
    static func project(_ members: String) -> String {
        #"{"projects": [{"id": "p", "domains": ["https://go.example.com"]\#(members.isEmpty ? "" : ", " + members)}]}"#
    }

    static let ios = #""bundleId": "com.example.app", "teamId": "ABCDE12345""#
    static let fingerprint = #""14:6D:E9:83:C5:73:06:50:D8:EE:B9:95:2F:34:FC:64:16:A0:83:42:E6:1D:BE:A8:8A:04:96:B2:3F:CF:44:E5""#

    @Test func theRepositoryExampleIsValid() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        let configuration = try RelinkConfiguration(json: try Data(contentsOf: url))
        #expect(configuration.projects.map(\.id) == ["pictlink", "fieldnotes"])
        let pictlink = try #require(configuration.project(id: "pictlink"))
        #expect(pictlink.ios.map(\.appID) == ["ABCDE12345.jp.furyu.pictlink.ios", "ABCDE12345.jp.furyu.pictlink.studio"])
        #expect(pictlink.android.map(\.packageName) == ["jp.furyu.pictlink.android"])
        #expect(pictlink.domains.map(\.description) == ["https://go.pictlink.com", "https://pictlink.com/links"])
        #expect(pictlink.routes.first?.path.description == "/p/{id}")
        #expect(pictlink.routes.first?.parameters.efr == "1")
        #expect(pictlink.deferred == DeferredLinkSettings(fingerprintWindowMinutes: 120, tokenWindowHours: 24, clipboard: true))
        #expect(pictlink.allowlist.allows("https://pictlink.com/myPage", projectDomains: pictlink.domains))
        #expect(!pictlink.allowlist.allows("https://evil.example/", projectDomains: pictlink.domains))
    }

    /// UTF-8 only: in UTF-16 the check of keys given twice (which reads bytes as UTF-8) would see none, and a strict
    /// allowlist could be read while a loose one applies.
    @Test func aFileInAnotherEncodingThanUTF8IsRefused() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        let text = try String(contentsOf: url, encoding: .utf8)
        for data in [Data(text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }), Data([0xFF, 0xFE]) + Data(text.utf8)] {
            do {
                _ = try RelinkConfiguration(json: data)
                Issue.record("read a file that is not UTF-8")
            } catch {
                #expect(error.problems.map(\.message) == ["not UTF-8 JSON text (save the file as UTF-8)"])
            }
        }
    }

    @Test func aProjectSetsItsCandidateBounds() throws {
        let json = Self.project(#""deferred": {"candidatesPerAddress": 50, "candidatesPerNetwork": 1000}"#)
        let project = try #require(try RelinkConfiguration(json: Data(json.utf8)).projects.first)
        #expect(project.deferred.candidateBounds == CandidateBounds(perAddress: 50, perNetwork: 1000))
    }

    @Test func aProjectSetsItsCapOfPendingClicks() throws {
        let json = Self.project(#""deferred": {"maxPendingClicks": 250000}"#)
        let project = try #require(try RelinkConfiguration(json: Data(json.utf8)).projects.first)
        #expect(project.deferred.maxPendingClicks == 250_000)
        #expect(try RelinkConfiguration(json: Data(Self.project("").utf8)).projects.first?.deferred.maxPendingClicks == 10_000_000)
    }

    @Test func aMinimalProjectGetsDefaults() throws {
        let configuration = try RelinkConfiguration(json: Data(Self.project("").utf8))
        let project = try #require(configuration.projects.first)
        #expect(project.deferred == .default)
        #expect(project.deferred.candidateBounds == CandidateBounds(perAddress: 200, perNetwork: 200))
        #expect(project.ios.isEmpty && project.android.isEmpty && project.routes.isEmpty)
        #expect(project.allowlist.allows("https://go.example.com/x", projectDomains: project.domains))
        #expect(project.allowlist.allows("https://apps.apple.com/app/id1", projectDomains: project.domains))
        #expect(!project.allowlist.allows("https://example.com/", projectDomains: project.domains))
    }

    @Test func nullMeansNotSet() throws {
        let json = Self.project(#""ios": [{\#(Self.ios), "iPadBundleId": null, "appStoreId": null}], "defaults": null"#)
        let configuration = try RelinkConfiguration(json: Data(json.utf8))
        #expect(configuration.projects[0].ios[0].iPadBundleId == nil)
    }

    @Test func fingerprintsAreUppercased() throws {
        let json = Self.project(#""android": [{"packageName": "com.example.app", "sha256CertFingerprints": [\#(Self.fingerprint.lowercased())]}]"#)
        let configuration = try RelinkConfiguration(json: Data(json.utf8))
        #expect(configuration.projects[0].android[0].sha256CertFingerprints == [Self.fingerprint.replacingOccurrences(of: "\"", with: "")])
    }

    @Test func everyProblemIsReportedAtOnce() {
        let json = Self.project(#""ios": [{"bundleId": "x", "teamId": "abc"}], "deferred": {"tokenWindowHours": 0}"#)
        #expect(
            Self.problems(json) == [
                "projects[0].ios[0].bundleId: must be a bundle ID like com.example.app (letters, digits, '-', separated by '.')",
                "projects[0].ios[0].teamId: must be 10 characters A-Z0-9",
                "projects[0].deferred.tokenWindowHours: must be from 1 to 720, got 0",
            ])
    }

    /// Each kind of problem, with the line it produces.
    static let cases: [(String, String)] = [
        // Document shape
        ("{", "not valid JSON"),
        ("[]", "must be an object, got an array"),
        (#"{}"#, "projects: is required"),
        (#"{"projects": []}"#, "projects: must list at least one entry"),
        (#"{"projects": {}}"#, "projects: must be an array, got an object"),
        (#"{"projects": ["p"]}"#, "projects[0]: must be an object, got a string"),
        (#"{"projects": [], "project": 1}"#, "project: unknown key; allowed keys: projects"),
        (project(#""Routes": []"#), "projects[0].Routes: unknown key (did you mean 'routes'?)"),
        // Project id and domains
        (#"{"projects": [{"domains": ["https://a.com"]}]}"#, "projects[0].id: is required"),
        (#"{"projects": [{"id": "Pict Link", "domains": ["https://a.com"]}]}"#, "projects[0].id: must be 1 to 63 characters a-z"),
        (#"{"projects": [{"id": 5, "domains": ["https://a.com"]}]}"#, "projects[0].id: must be a string, got a number"),
        (#"{"projects": [{"id": "", "domains": ["https://a.com"]}]}"#, "projects[0].id: must not be empty"),
        (
            #"{"projects": [{"id": "p", "domains": ["https://a.com"]}, {"id": "p", "domains": ["https://b.com"]}]}"#,
            "projects[1].id: 'p' is used by another project"
        ),
        (#"{"projects": [{"id": "p"}]}"#, "projects[0].domains: is required"),
        (#"{"projects": [{"id": "p", "domains": []}]}"#, "projects[0].domains: must list at least one entry"),
        (
            #"{"projects": [{"id": "p", "domains": ["go.example.com"]}]}"#,
            "projects[0].domains[0]: 'go.example.com' is not an absolute URL with a host"
        ),
        (#"{"projects": [{"id": "p", "domains": ["ftp://a.com"]}]}"#, "must start with https://"),
        (#"{"projects": [{"id": "p", "domains": ["https://a.com", "https://A.com/"]}]}"#, "projects[0].domains[1]: 'https://A.com/' is listed twice"),
        // Under Relink's own paths: the console or the API would shadow the links, and the association file claim them.
        (
            #"{"projects": [{"id": "p", "domains": ["https://a.com/console"]}]}"#,
            "projects[0].domains[0]: '/console' is reserved for Relink's own pages; a domain's path cannot start with it"
        ),
        (#"{"projects": [{"id": "p", "domains": ["https://a.com/go", "https://a.com/v1/go"]}]}"#, "projects[0].domains[1]: '/v1' is reserved"),
        (
            #"{"projects": [{"id": "p", "domains": ["https://a.com"]}, {"id": "q", "domains": ["https://a.com/q"]}]}"#,
            "projects[1].domains[0]: host 'a.com' already belongs to project 'p'"
        ),
        // Spellings no request names: browsers drop a host's final dot and the scheme's own port (the links of such a
        // domain were minted and never reached).
        (#"{"projects": [{"id": "p", "domains": ["https://a.com."]}]}"#, "projects[0].domains[0]: 'https://a.com.' is asked for as https://a.com "),
        (
            #"{"projects": [{"id": "p", "domains": ["https://a.com:443/go"]}]}"#,
            "projects[0].domains[0]: 'https://a.com:443/go' is asked for as https://a.com/go "
        ),
        (
            #"{"projects": [{"id": "p", "domains": ["http://a.com.:80"]}]}"#,
            "projects[0].domains[0]: 'http://a.com.:80' is asked for as http://a.com "
        ),

        // Hosts browsers send in another form: a name's IDNA form, an IPv4 address as four decimal numbers.
        (
            #"{"projects": [{"id": "p", "domains": ["https://gö.example.com"]}]}"#,
            "projects[0].domains[0]: 'https://gö.example.com' has a host that is not ASCII"
        ),
        (#"{"projects": [{"id": "p", "domains": ["https://ｇｏ.example.com"]}]}"#, "has a host that is not ASCII"),
        (
            #"{"projects": [{"id": "p", "domains": ["http://127.1"]}]}"#,
            "projects[0].domains[0]: 'http://127.1' has a host that browsers take for an IPv4"
        ),
        (#"{"projects": [{"id": "p", "domains": ["http://0x7f000001"]}]}"#, "has a host that browsers take for an IPv4"),
        (#"{"projects": [{"id": "p", "domains": ["http://127.000.0.1:8080"]}]}"#, "has a host that browsers take for an IPv4"),
        (#"{"projects": [{"id": "p", "domains": ["http://go.example.1"]}]}"#, "has a host that browsers take for an IPv4"),
        (
            #"{"projects": [{"id": "p", "domains": ["http://[0:0:0:0:0:0:0:1]:8080"]}]}"#,
            "projects[0].domains[0]: 'http://[0:0:0:0:0:0:0:1]:8080' has an IPv6 address that browsers write another way ([::1])"
        ),
        (#"{"projects": [{"id": "p", "domains": ["http://[::ffff:127.0.0.1]"]}]}"#, "browsers write another way ([::ffff:7f00:1])"),
        (#"{"projects": [{"id": "p", "domains": ["https://go.example.com:0"]}]}"#, "projects[0].domains[0]: 'https://go.example.com:0' names port 0"),
        (
            #"{"projects": [{"id": "p", "domains": ["https://\#(String(repeating: "a", count: 64)).example.com"]}]}"#,
            "has a host name longer than DNS allows"
        ),
        (#"{"projects": [{"id": "p", "domains": ["https://xn--.com"]}]}"#, "'https://xn--.com' has a label 'xn--' that is not an IDNA A-label"),
        (#"{"projects": [{"id": "p", "domains": ["https://go.xn--abc-.example"]}]}"#, "has a label 'xn--abc-' that is not an IDNA A-label"),
        (#"{"projects": [{"id": "p", "domains": ["https://go.example.com/a/.."]}]}"#, "has a '.' or '..' segment, which browsers remove"),
        (#"{"projects": [{"id": "p", "domains": ["https://go.example.com/./links"]}]}"#, "has a '.' or '..' segment, which browsers remove"),
        // A key twice: one meaning here, another to most JSON tools.
        (
            #"{"projects": [{"id": "p", "allowlist": ["^https://a\\.com/"], "domains": ["https://a.com"], "allowlist": [".*"]}]}"#,
            "the file has the key \"allowlist\" twice in one object"
        ),
        // iOS apps
        (project(#""ios": [{"teamId": "ABCDE12345"}]"#), "projects[0].ios[0].bundleId: is required"),
        (project(#""ios": [{"bundleId": "app", "teamId": "ABCDE12345"}]"#), "projects[0].ios[0].bundleId: must be a bundle ID"),
        (project(#""ios": [{"bundleId": "com.example.app", "teamId": "ABCDE1234"}]"#), "projects[0].ios[0].teamId: must be 10 characters A-Z0-9"),
        (project(#""ios": [{"bundleId": "com.example.app", "teamId": "abcde12345"}]"#), "projects[0].ios[0].teamId: must be 10 characters A-Z0-9"),
        (project(#""ios": [{\#(ios), "appStoreId": "id123"}]"#), "projects[0].ios[0].appStoreId: must be the numeric App Store ID"),
        (project(#""ios": [{\#(ios), "appStoreId": 123}]"#), "projects[0].ios[0].appStoreId: must be a string, got a number"),
        (project(#""ios": [{\#(ios), "customScheme": "pictlink://"}]"#), "projects[0].ios[0].customScheme: must be a URL scheme"),
        (project(#""ios": [{\#(ios), "customScheme": "https"}]"#), "projects[0].ios[0].customScheme: must be the app's own scheme"),
        (project(#""ios": [{\#(ios), "iPadBundleId": "ipad app"}]"#), "projects[0].ios[0].iPadBundleId: must be a bundle ID"),
        (project(#""ios": [{\#(ios), "teamID": "X"}]"#), "projects[0].ios[0].teamID: unknown key (did you mean 'teamId'?)"),
        (project(#""ios": [{\#(ios)}, {\#(ios)}]"#), "projects[0].ios[1].bundleId: 'com.example.app' is listed twice in this project"),
        (project(#""ios": {}"#), "projects[0].ios: must be an array, got an object"),
        // Android apps
        (
            project(#""android": [{"packageName": "1com.x", "sha256CertFingerprints": [\#(fingerprint)]}]"#),
            "projects[0].android[0].packageName: must be an Android package name"
        ),
        (project(#""android": [{"sha256CertFingerprints": [\#(fingerprint)]}]"#), "projects[0].android[0].packageName: is required"),
        (project(#""android": [{"packageName": "com.x"}]"#), "projects[0].android[0].sha256CertFingerprints: is required"),
        (
            project(#""android": [{"packageName": "com.x", "sha256CertFingerprints": []}]"#),
            "projects[0].android[0].sha256CertFingerprints: must list at least one entry"
        ),
        (
            project(#""android": [{"packageName": "com.x", "sha256CertFingerprints": ["14:6D:E9"]}]"#),
            "projects[0].android[0].sha256CertFingerprints[0]: must be a SHA-256 certificate fingerprint"
        ),
        (
            project(#""android": [{"packageName": "com.x", "sha256CertFingerprints": [\#(fingerprint), \#(fingerprint)]}]"#),
            "projects[0].android[0].sha256CertFingerprints[1]: is listed twice"
        ),
        (
            project(
                #""android": [{"packageName": "com.x", "sha256CertFingerprints": [\#(fingerprint)]}, {"packageName": "com.x", "sha256CertFingerprints": [\#(fingerprint)]}]"#
            ),
            "projects[0].android[1].packageName: 'com.x' is listed twice in this project"
        ),
        // Allowlist
        (project(#""allowlist": ["https://a\\.com/.*"]"#), "projects[0].allowlist[0]: 'https://a\\.com/.*': the pattern must be anchored"),
        (project(#""allowlist": ["^https://(a\\.com$"]"#), "projects[0].allowlist[0]: '^https://(a\\.com$': missing ')'"),
        (project(#""allowlist": [1]"#), "projects[0].allowlist[0]: must be a string, got a number"),
        // Defaults
        (project(#""defaults": {"socialImageLink": "og.png"}"#), "projects[0].defaults.socialImageLink: must be an absolute http(s) URL"),
        (
            project(#""defaults": {"desktopFallbackLink": "https://elsewhere.example/"}"#),
            "projects[0].defaults.desktopFallbackLink: is not allowed by the project's allowlist"
        ),
        (project(#""defaults": {"socialTitle": true}"#), "projects[0].defaults.socialTitle: must be a string, got a boolean"),
        (project(#""defaults": {"title": "x"}"#), "projects[0].defaults.title: unknown key"),
        // Routes
        (project(#""routes": [{"path": "p/{id}", "link": "https://go.example.com/{id}"}]"#), "projects[0].routes[0].path: must start with '/'"),
        (project(#""routes": [{"path": "/", "link": "https://go.example.com/"}]"#), "projects[0].routes[0].path: '/' serves long links"),
        (project(#""routes": [{"path": "/p/", "link": "https://go.example.com/"}]"#), "projects[0].routes[0].path: must not end with '/'"),
        (project(#""routes": [{"path": "/_/x", "link": "https://go.example.com/"}]"#), "projects[0].routes[0].path: '/_' is reserved"),
        (project(#""routes": [{"path": "/.well-known/x", "link": "https://go.example.com/"}]"#), "'/.well-known' is reserved"),
        // Every path Relink serves (RelinkPaths), not only some: a route there would be shadowed or shadow it.
        (project(#""routes": [{"path": "/metrics", "link": "https://go.example.com/"}]"#), "'/metrics' is reserved"),
        (project(#""routes": [{"path": "/console/{id}", "link": "https://go.example.com/"}]"#), "'/console' is reserved"),
        (project(#""routes": [{"path": "/readyz", "link": "https://go.example.com/"}]"#), "'/readyz' is reserved"),
        (project(#""routes": [{"path": "/v1/{id}", "link": "https://go.example.com/"}]"#), "'/v1' is reserved"),
        (
            project(#""routes": [{"path": "/{id}", "link": "https://go.example.com/{id}"}]"#),
            "projects[0].routes[0].path: must start with a literal segment"
        ),
        (project(#""routes": [{"path": "/p/{a-b}", "link": "https://go.example.com/"}]"#), "'{a-b}' is not a variable"),
        (project(#""routes": [{"path": "/p/{a}/{a}", "link": "https://go.example.com/"}]"#), "uses {a} twice"),
        (project(#""routes": [{"path": "/p//x", "link": "https://go.example.com/"}]"#), "has an empty segment"),
        (project(#""routes": [{"path": "/p-{id}", "link": "https://go.example.com/"}]"#), "segment 'p-{id}' may only hold"),
        (project(#""routes": [{"path": "/p/{id}"}]"#), "projects[0].routes[0].link: is required"),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/{slug}"}]"#),
            "projects[0].routes[0].link: uses {slug}, which the route's path does not define"
        ),
        (project(#""routes": [{"path": "/p/{id}", "link": "/product/{id}"}]"#), "projects[0].routes[0].link: must be an absolute http(s) URL"),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": {"foo": "1"}}]"#),
            "projects[0].routes[0].parameters.foo: 'foo' is not a link parameter"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": {"link": "x"}}]"#),
            "projects[0].routes[0].parameters.link: set the route's 'link' instead"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": {"d": "1"}}]"#),
            "projects[0].routes[0].parameters.d: 'd' is only for clicks"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": {"efr": 1}}]"#),
            "projects[0].routes[0].parameters.efr: must be a string, got a number"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": {"st": "{name}"}}]"#),
            "projects[0].routes[0].parameters.st: uses {name}"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/", "parameters": []}]"#),
            "projects[0].routes[0].parameters: must be an object of link parameters, got an array"
        ),
        (
            project(#""routes": [{"path": "/p/{id}", "link": "https://go.example.com/"}, {"path": "/p/{code}", "link": "https://go.example.com/"}]"#),
            "projects[0].routes[1].path: '/p/{code}' matches the same paths as '/p/{id}'"
        ),
        // Deferred links
        (project(#""deferred": {"fingerprintWindowMinutes": 0}"#), "projects[0].deferred.fingerprintWindowMinutes: must be from 1 to 1440, got 0"),
        (project(#""deferred": {"tokenWindowHours": 1.5}"#), "projects[0].deferred.tokenWindowHours: must be a whole number, got a fraction"),
        (project(#""deferred": {"tokenWindowHours": "24"}"#), "projects[0].deferred.tokenWindowHours: must be a whole number, got a string"),
        (project(#""deferred": {"clipboard": "yes"}"#), "projects[0].deferred.clipboard: must be true or false, got a string"),
        (project(#""deferred": {"candidatesPerAddress": 0}"#), "projects[0].deferred.candidatesPerAddress: must be from 1 to 1000, got 0"),
        (project(#""deferred": {"candidatesPerNetwork": 5000}"#), "projects[0].deferred.candidatesPerNetwork: must be from 1 to 1000, got 5000"),
        (project(#""deferred": {"maxPendingClicks": 999}"#), "projects[0].deferred.maxPendingClicks: must be from 1000 to 1000000000, got 999"),
        (project(#""deferred": {"maxPendingClicks": 1e300}"#), "projects[0].deferred.maxPendingClicks: must be from 1000 to 1000000000, got 1e+300"),
        (
            project(#""clickTracking": [{"host": "go.example.com", "upstream": "https://u.example.net", "paths": ["/uni/*"]}]"#),
            "projects[0].clickTracking[0].host: 'go.example.com' is a link domain of project 'p'; a tracking domain is a host of its own"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://u.example.net/x", "paths": ["/uni/*"]}]"#),
            "projects[0].clickTracking[0].upstream: 'https://u.example.net/x' must be an origin, https://host[:port], without a path"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://u.example.net", "preset": "mailchimp"}]"#),
            "projects[0].clickTracking[0].preset: must be one of sendgrid, adobe (or give the paths)"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://u.example.net", "preset": "sendgrid", "paths": ["/x"]}]"#),
            "projects[0].clickTracking[0].paths: give either paths or a preset, not both"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://u.example.net", "paths": ["uni/*"]}]"#),
            "projects[0].clickTracking[0].paths[0]: 'uni/*' must start with /"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://click.example.com", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].upstream: 'https://click.example.com' is served by Relink itself; the upstream is the email service's own address"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com.", "upstream": "https://u.example.net", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].host: is asked for as click.example.com "
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com:443", "upstream": "https://u.example.net", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].host: is asked for as click.example.com "
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com:80", "upstream": "https://u.example.net", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].host: is asked for as click.example.com "
        ),
        (
            project(#""clickTracking": [{"host": "clïck.example.com", "upstream": "https://u.example.net", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].host: has a host that is not ASCII"
        ),
        // The fetcher maps a fullwidth upstream to the plain host: refused, as the check against Relink's own hosts
        // would miss it.
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://ｇｏ.example.com", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].upstream: 'https://ｇｏ.example.com' has a host that is not ASCII"
        ),
        // Another spelling of one of Relink's own hosts is one of them.
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "https://GO.example.com.:443", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].upstream: 'https://go.example.com.:443' is served by Relink itself"
        ),
        (
            project(#""clickTracking": [{"host": "click.example.com", "upstream": "http://click.example.com.", "paths": ["/u*"]}]"#),
            "projects[0].clickTracking[0].upstream: 'http://click.example.com.' is served by Relink itself"
        ),
        // A tracking host of a project listed later is Relink's too.
        (
            #"{"projects": [{"id": "p", "domains": ["https://go.p.example"], "clickTracking": [{"host": "click.p.example", "upstream": "https://click.q.example", "paths": ["/u*"]}]}, {"id": "q", "domains": ["https://go.q.example"], "clickTracking": [{"host": "click.q.example", "upstream": "https://u.example.net", "paths": ["/u*"]}]}]}"#,
            "projects[0].clickTracking[0].upstream: 'https://click.q.example' is served by Relink itself"
        ),
        (
            project(#""deferred": {"fingerprintWindowMinutes": 180, "tokenWindowHours": 2}"#),
            "projects[0].deferred.fingerprintWindowMinutes: must not exceed tokenWindowHours (2 h)"
        ),
    ]

    /// The spellings requests do name pass: names in ASCII (IDNA forms too), addresses as browsers write them.
    @Test func hostsAsRequestsNameThemPass() {
        for domain in [
            "https://go.example.com", "https://xn--g-1ga.example.com", "http://localhost:8080", "http://127.0.0.1:8080", "http://[::1]:8080",
            "https://go.example.com:8443/links", "https://1go.example.com", "https://go.example.x1", "http://[2001:db8:0:1::1]",
        ] {
            #expect(Self.problems(#"{"projects": [{"id": "p", "domains": ["\#(domain)"]}]}"#).isEmpty, "\(domain)")
        }
    }

    @Test(arguments: cases)
    func reportsTheProblemWithItsPath(json: String, expected: String) {
        let problems = Self.problems(json)
        #expect(problems.contains { $0.hasPrefix(expected) || $0.contains(expected) }, "got \(problems)")
    }

    /// A route every click on which would be refused (its fixed link or a parameter outside the allowlist, or back into
    /// a link domain) is a problem of the file's: `config check` passed them and every click was a 400.
    @Test func routesEveryClickWouldRefuseAreProblems() {
        let refused = [
            #"{"path": "/self2", "link": "https://go.example.com/self2"}"#,
            #"{"path": "/ev/{id}", "link": "https://evil.example/x", "parameters": {"utm_content": "{id}"}}"#,
            #"{"path": "/ev2", "link": "https://example.com/x", "parameters": {"ofl": "https://evil.example/"}}"#,
            #"{"path": "/ev4", "link": "https://example.com/x", "parameters": {"ifl": "https://go.example.com/ev4"}}"#,
            #"{"path": "/other", "link": "https://go.other.example/x"}"#,
        ]
        for route in refused {
            let json = #"""
                {"projects": [
                  {"id": "p", "domains": ["https://go.example.com"], "allowlist": ["^https://(go\\.)?(other\\.)?example\\.com/.*$"], "routes": [\#(route)]},
                  {"id": "q", "domains": ["https://go.other.example"]}
                ]}
                """#
            let problems = Self.problems(json)
            #expect(problems.contains { $0.hasPrefix("projects[0].routes[0]: every click on it would be refused: ") }, "\(route): \(problems)")
        }
        // A value with a variable depends on the click's: left to the clicks (an allowlist may take `[0-9]+` and refuse
        // any sample).
        let open = #"""
            {"projects": [{"id": "p", "domains": ["https://go.example.com"],
              "allowlist": ["^https://([a-z]+\\.)?example\\.com/p/[0-9]+$", "^https://web\\.example\\.com/(a|b)$"],
              "routes": [{"path": "/to/{site}", "link": "https://{site}.example.com/p/1"}, {"path": "/p/{id}", "link": "https://example.com/p/{id}"},
                         {"path": "/w/{id}/{page}", "link": "https://example.com/p/{id}", "parameters": {"ofl": "https://web.example.com/{page}"}}]}]}
            """#
        #expect(Self.problems(open).isEmpty, "\(Self.problems(open))")
    }

    /// A route's fixed values that every click would be warned of (a value ignored) load, and are named with their
    /// route; a value with a variable is the click's, and the sample configuration has none.
    @Test func routeValuesEveryClickIgnoresAreWarnedOf() throws {
        let json = #"""
            {"projects": [{"id": "p", "domains": ["https://go.example.com"], "allowlist": ["^https://example\\.com/.*$"],
              "routes": [{"path": "/w/{id}", "link": "https://example.com/w/{id}",
                          "parameters": {"afl": "javascript:alert(1)", "ifl": "{id}"}}]}]}
            """#
        let configuration = try RelinkConfiguration(json: Data(json.utf8))
        let warnings = configuration.routeWarnings()
        #expect(warnings.map(\.path) == ["projects[0].routes[0] (/w/{id})"], "\(warnings)")
        #expect(warnings.first?.message.contains("'afl' must be an http or https URL") == true, "\(warnings)")
        let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        #expect(try RelinkConfiguration(json: Data(contentsOf: sample)).routeWarnings().isEmpty)
    }

    /// Two projects sending desktop clicks (or a rule's) to each other's links would bounce them between the two,
    /// counted at every turn: refused once every project's domains are known (each was checked against its own).
    @Test func destinationsIntoAnotherProjectsLinkDomainAreProblems() {
        let json = #"""
            {"projects": [
              {"id": "a", "domains": ["https://go.a.example"], "allowlist": ["^https://go\\.b\\.example(/.*)?$"],
               "defaults": {"desktopFallbackLink": "https://go.b.example/x"},
               "rules": {"rules": [{"then": {"ofl": "https://go.b.example/y"}}]}},
              {"id": "b", "domains": ["https://go.b.example"], "allowlist": ["^https://go\\.a\\.example(/.*)?$"],
               "defaults": {"desktopFallbackLink": "https://go.a.example/x"}}
            ]}
            """#
        let problems = Self.problems(json)
        #expect(
            problems.contains { $0.hasPrefix("projects[0].defaults.desktopFallbackLink: points into the link domain https://go.b.example") },
            "\(problems)")
        #expect(
            problems.contains { $0.hasPrefix("projects[1].defaults.desktopFallbackLink: points into the link domain https://go.a.example") },
            "\(problems)")
        #expect(problems.contains { $0.hasPrefix("projects[0].rules: rules[0].then.ofl") && $0.contains("go.b.example") }, "\(problems)")
        #expect(problems.count == 3, "\(problems)")
    }

    @Test func theErrorPrintsOneLinePerProblem() {
        let error = ConfigurationError(problems: [
            ConfigurationProblem(path: "a", message: "x"), ConfigurationProblem(path: "b[0]", message: "y"),
        ])
        #expect(error.description == "a: x\nb[0]: y")
    }
}
