import Foundation
import HummingbirdTesting
import NIOCore
import NIOPosix
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkServer
@testable import RelinkTools
@testable import relink

/// `relink doctor` on fixture apps (a correct one and broken ones, under Fixtures/doctor) and against a live server.
@Suite("relink doctor")
struct DoctorCommandTests {
    typealias E = EndToEndTests
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Fixtures/doctor").path

    static func doctor(_ arguments: [String]) async -> (output: [String], error: CLIError?) {
        await FirebaseMigrationTests.run(["doctor", "--project", "pictlink", "--config", E.routes] + arguments)
    }

    static func pictlink() throws -> Project {
        try #require(try RelinkConfiguration(json: Data(contentsOf: URL(fileURLWithPath: E.routes))).project(id: "pictlink"))
    }

    static func entitlements(_ name: String) async -> (output: [String], error: CLIError?) {
        await doctor(["--entitlements", "\(fixtures)/\(name)"])
    }

    static func manifest(_ name: String) async -> (output: [String], error: CLIError?) {
        await doctor(["--manifest", "\(fixtures)/\(name)"])
    }

    @Test func passesTheCorrectApp() async {
        let result = await Self.doctor(["--entitlements", "\(Self.fixtures)/App.entitlements", "--manifest", "\(Self.fixtures)/AndroidManifest.xml"])
        #expect(result.error == nil, "\(result.output)")
        #expect(result.output.last == "6 check(s): 6 passed, 0 warning(s), 0 failed")
        #expect(
            result.output.contains { $0.hasSuffix("AndroidManifest.xml: https://pictlink.com/links opens in the app (intent-filter at line 16)") })
    }

    @Test func namesEachDefectOfTheBrokenEntitlements() async {
        let missing = await Self.entitlements("Broken-MissingDomain.entitlements")
        #expect(missing.error?.message == "1 check(s) failed")
        #expect(
            missing.output.contains {
                $0.contains("✗") && $0.contains("no applinks: entry for pictlink.com — add <string>applinks:pictlink.com</string>")
            })
        #expect(missing.output.contains { $0.contains("⚠") && $0.contains("applinks:go.pictlink.com?mode=developer") })
        #expect(missing.output.contains { $0.contains("⚠") && $0.contains("applinks:old.page.link is not a domain of project pictlink") })

        // A host without its service is not a missing entry: the entry is there, written so that iOS ignores it.
        let bare = await Self.entitlements("Broken-NoPrefix.entitlements")
        #expect(bare.error?.message == "1 check(s) failed")
        #expect(
            bare.output.contains {
                $0.contains("✗")
                    && $0.hasSuffix(
                        "'go.pictlink.com' lacks the applinks: prefix — write it as <string>applinks:go.pictlink.com</string> in com.apple.developer.associated-domains"
                    )
            }, "\(bare.output)")
        #expect(bare.output.contains { $0.contains("✓") && $0.hasSuffix("applinks:pictlink.com") })

        let other = await Self.entitlements("Broken-OtherApp.entitlements")
        #expect(other.output.contains { $0.contains("✓") && $0.contains("applinks:*.pictlink.com") })
        #expect(other.output.contains { $0.contains("✗") && $0.contains("the app ZZZZZ99999.com.example.other is not one of the project's") })

        let none = await Self.entitlements("Broken-NoDomains.entitlements")
        #expect(none.output.first?.contains("has no com.apple.developer.associated-domains array") == true)

        let garbage = await Self.entitlements("Broken-NotXML.entitlements")
        #expect(garbage.output.first?.contains("cannot be read as a property list: not well-formed XML") == true)

        let absent = await Self.entitlements("Nowhere.entitlements")
        #expect(absent.error?.message.hasPrefix("cannot read") == true)
    }

    @Test func namesEachDefectOfTheBrokenManifests() async throws {
        let broken = await Self.manifest("Broken-AndroidManifest.xml")
        #expect(broken.error?.message == "3 check(s) failed")
        #expect(broken.output.contains { $0.contains("package com.example.wrong is not one of the project's") })
        #expect(broken.output.contains { $0.contains("the intent-filter for go.pictlink.com (line 5) has no android:autoVerify=\"true\"") })
        #expect(
            broken.output.contains {
                $0.contains("the intent-filter for pictlink.com (line 11) lacks <category android:name=\"android.intent.category.BROWSABLE\"/>")
            })

        // A filter for the host with the wrong scheme is named, with all it lacks, not reported as missing.
        let http = await Self.manifest("Broken-HTTP-AndroidManifest.xml")
        #expect(http.error?.message == "1 check(s) failed")
        #expect(
            http.output.contains {
                $0.contains("✗")
                    && $0.hasSuffix(
                        "the intent-filter for go.pictlink.com (line 5) has scheme http only and no android:autoVerify=\"true\": https links open the browser"
                            + " — add <data android:scheme=\"https\"/> and android:autoVerify=\"true\" to it")
            }, "\(http.output)")
        #expect(!http.output.joined().contains("no intent-filter"))

        let paths = await Self.manifest("Broken-Paths-AndroidManifest.xml")
        #expect(paths.output.contains { $0.contains("the intent-filters for go.pictlink.com do not cover /Ab3x, /campaign/x1") })
        #expect(paths.output.contains { $0.contains("the intent-filters for pictlink.com do not cover /links/Ab3x, /links/campaign/x1") })

        // <data> elements of one filter combine: /links/ applies to both hosts. Its DTD (an unused port) is not loaded.
        let shared = await Self.manifest("Broken-SharedData-AndroidManifest.xml")
        #expect(shared.output.contains { $0.contains("the intent-filters for go.pictlink.com do not cover /Ab3x, /p/x1, /campaign/x1") })
        #expect(shared.output.contains { $0.contains("https://pictlink.com/links opens in the app") })
    }

    /// One short entity referred to 30,000 times would be 3 GB of text once read; an external one would be a file of
    /// this machine; one that nothing declares would silently drop out of its value. Each is refused at once.
    @Test(arguments: [
        ("<!DOCTYPE plist [<!ENTITY a \"\(String(repeating: "A", count: 100_000))\">]>", String(repeating: "&a;", count: 30_000)),
        ("<!DOCTYPE plist [<!ENTITY secret SYSTEM \"file:///etc/hostname\">]>", "applinks:&secret;"),
        ("<!DOCTYPE plist [<!ENTITY % remote SYSTEM \"http://127.0.0.1:9/x.dtd\"> %remote;]>", "applinks:go.pictlink.com"),
        ("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">", "applinks:&x;go.pictlink.com"),
    ])
    func refusesEntitlementsWithEntities(_ doctype: String, _ value: String) throws {
        let plist = """
            <?xml version="1.0" encoding="UTF-8"?>
            \(doctype)
            <plist version="1.0"><dict><key>\(AppDoctor.associatedDomainsKey)</key><array><string>\(value)</string></array></dict></plist>
            """
        let checks = AppDoctor.entitlements(Array(plist.utf8), file: "App.entitlements", project: try Self.pictlink())
        #expect(checks.count == 1)
        #expect(checks.first?.status == .fail)
        #expect(checks.first?.message.hasPrefix("cannot be read as a property list: ") == true, "\(checks)")
        #expect(checks.first?.message.contains("entit") == true, "\(checks)")
    }

    /// Android compares an intent filter's scheme and host as written, and a Unicode look-alike (the Kelvin sign) is
    /// not its ASCII letter anywhere: neither passes.
    @Test func capitalsAndLookAlikesInHostsAndSchemesFail() throws {
        func manifest(scheme: String, host: String) -> String {
            """
            <manifest xmlns:android="http://schemas.android.com/apk/res/android" package="jp.furyu.pictlink.android"><application>
            <activity android:name=".Main"><intent-filter android:autoVerify="true"><action android:name="android.intent.action.VIEW"/>
            <category android:name="android.intent.category.DEFAULT"/><category android:name="android.intent.category.BROWSABLE"/>
            <data android:scheme="\(scheme)" android:host="\(host)"/><data android:host="pictlink.com" android:pathPrefix="/links/"/>
            </intent-filter></activity></application></manifest>
            """
        }
        for (scheme, host, named) in [
            ("https", "GO.PICTLINK.COM", #"android:host="GO.PICTLINK.COM""#), ("HTTPS", "go.pictlink.com", #"android:scheme="HTTPS""#),
            ("https", "go.pictlin\u{212A}.com", "android:host=\"go.pictlin\u{212A}.com\""),
        ] {
            let checks = AppDoctor.manifest(Array(manifest(scheme: scheme, host: host).utf8), file: "m.xml", project: try Self.pictlink())
            #expect(checks.contains { $0.status == .fail && $0.message.hasPrefix(named) }, "\(checks)")
            #expect(!checks.contains { $0.status == .pass && $0.message.contains("go.pictlink.com opens in the app") }, "\(checks)")
        }
        #expect(AppDoctor.entry("applinks:go.pictlink.com", service: "applinks", covers: "go.pictlink.com"))
        #expect(AppDoctor.entry("AppLinks:GO.pictlink.com", service: "applinks", covers: "go.pictlink.com"))
        #expect(!AppDoctor.entry("applin\u{212A}s:go.pictlink.com", service: "applinks", covers: "go.pictlink.com"))
        #expect(!AppDoctor.entry("applinks:go.pictlin\u{212A}.com", service: "applinks", covers: "go.pictlink.com"))
    }

    /// A server that takes the connection and never answers the TLS handshake gets the fetch's own timeout, not the
    /// HTTP client's 10 s connect timeout on top of it.
    @Test(.measuresTime) func aHandshakeThatNeverEndsTakesTheFetchsTimeout() async throws {
        let silent = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(silent.localAddress?.port)
        let started = ContinuousClock.now
        let checks = await AppDoctor.deployment("https://127.0.0.1:\(port)", project: try Self.pictlink(), timeout: .seconds(1))
        let elapsed = ContinuousClock.now - started
        try await silent.close()
        #expect(checks.allSatisfy { $0.status == .fail } && checks.first?.message.contains("no complete answer in 1 s") == true, "\(checks)")
        #expect(elapsed < .seconds(8), "\(elapsed)")
    }

    /// A component that asks for a query item or a fragment opens no link without them, as Relink's links are.
    @Test func aComponentThatAsksForAQueryOpensNoBareLink() {
        let detail: [String: Any] = ["components": [["/": "*", "?": ["utm_source": "?*"]]]]
        #expect(!AppDoctor.opens("/Ab3x", detail: detail, caseSensitive: true))
        #expect(!AppDoctor.opens("/Ab3x", detail: ["components": [["/": "*", "#": "top"]]], caseSensitive: true))
        #expect(AppDoctor.opens("/Ab3x", detail: ["components": [["/": "*", "?": "*", "#": "*"]]], caseSensitive: true))
        #expect(AppDoctor.opens("/ab3x", detail: ["components": [["/": "/AB3X", "caseSensitive": false]]], caseSensitive: true))
    }

    @Test func refusesAManifestWithEntities() throws {
        let quadratic = """
            <?xml version="1.0"?>
            <!DOCTYPE manifest [<!ENTITY a "\(String(repeating: "A", count: 100_000))">]>
            <manifest xmlns:android="http://schemas.android.com/apk/res/android" package="\(String(repeating: "&a;", count: 30_000))"/>
            """
        let undeclared = """
            <?xml version="1.0"?>
            <!DOCTYPE manifest SYSTEM "http://127.0.0.1:9/manifest.dtd">
            <manifest xmlns:android="http://schemas.android.com/apk/res/android" package="jp.furyu.&x;pictlink.android"/>
            """
        for manifest in [quadratic, undeclared] {
            let checks = AppDoctor.manifest(Array(manifest.utf8), file: "AndroidManifest.xml", project: try Self.pictlink())
            #expect(checks.count == 1)
            #expect(checks.first?.message.hasPrefix("cannot be read: ") == true && checks.first?.message.contains("entit") == true, "\(checks)")
        }
    }

    @Test func globsMatchAsAndroidMatchesThem() {
        #expect(IntentFilter.matchesSimpleGlob("/links/Ab3x", "/links/.*"))
        #expect(IntentFilter.matchesSimpleGlob("/p/42", "/p/.*"))
        #expect(IntentFilter.matchesSimpleGlob("/aaab", "/a*b"))
        #expect(IntentFilter.matchesSimpleGlob("/b", "/a*b"))
        #expect(!IntentFilter.matchesSimpleGlob("/links", "/links/.*"))
        #expect(IntentFilter.matchesSimpleGlob("/a.b", "/a\\.b"))
        #expect(!IntentFilter.matchesSimpleGlob("/axb", "/a\\.b"))
    }

    @Test(.measuresTime) func advancedPatternsMatchAsOnADeviceAndNeverBacktrack() {
        #expect(IntentFilter.matchesAdvancedGlob("/links/Ab3x", "/links/[a-zA-Z0-9]+"))
        #expect(!IntentFilter.matchesAdvancedGlob("/links/Ab-3", "/links/[a-zA-Z0-9]+"))
        #expect(IntentFilter.matchesAdvancedGlob("/p/12", "/p/[^/]{1,3}"))
        #expect(!IntentFilter.matchesAdvancedGlob("/p/1234", "/p/[^/]{1,3}"))
        // `|`, `(` and `?` are characters on Android, not regex syntax.
        #expect(!IntentFilter.matchesAdvancedGlob("/x", "/.*|"))
        #expect(IntentFilter.matchesAdvancedGlob("/.|", "/.*|"))
        #expect(!IntentFilter.matchesAdvancedGlob("/x", "/(?:x)?.*"))
        // 60 stars and a letter that is not there: answered at once, not after exponential backtracking.
        let started = ContinuousClock.now
        #expect(!IntentFilter.matchesAdvancedGlob(String(repeating: "a", count: 200), "/" + String(repeating: ".*", count: 60) + "Z"))
        // Backtracking would take longer than the test run; the bound leaves room for a loaded machine.
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func anAssociationFileThatExcludesEverythingOpensNothing() {
        let excluding: [String: Any] = ["appIDs": ["T.b"], "components": [["/": "*", "exclude": true], ["/": "/*"]]]
        #expect(!AppDoctor.opens("/Ab3x", detail: excluding, caseSensitive: true))
        let relinks: [String: Any] = ["appIDs": ["T.b"], "components": [["/": "/_/*", "exclude": true], ["/": "/*"]]]
        #expect(AppDoctor.opens("/Ab3x", detail: relinks, caseSensitive: true))
        #expect(!AppDoctor.opens("/_/beacon", detail: relinks, caseSensitive: true))
        let legacy: [String: Any] = ["appID": "T.b", "paths": ["NOT /links/*", "/*"]]
        #expect(!AppDoctor.opens("/links/Ab3x", detail: legacy, caseSensitive: true))
        #expect(AppDoctor.opens("/p/1", detail: legacy, caseSensitive: true))
        #expect(AASAPattern.matches("/p/12", "/p/??"))
        #expect(!AASAPattern.matches("/p/123", "/p/??"))
    }

    /// An association file that claims the whole host also hands the console and the API to the app: doctor warns;
    /// the generated file leaves them out and passes.
    @Test func warnsWhenTheAssociationFileClaimsWhatRelinkServesToBrowsers() throws {
        let routes = try RelinkConfiguration(json: Data(contentsOf: URL(fileURLWithPath: EndToEndTests.routes)))
        let project = try #require(routes.project(id: "fieldnotes"))
        let generated = try #require(AssociationFiles.generate(for: RelinkConfiguration(projects: [project])).first).appleAppSiteAssociation
        let appID = try #require(project.ios.first).appID
        func checks(_ body: String) -> [AppDoctor.Check] {
            AppDoctor.association(
                subject: "apple-app-site-association", fetched: (200, "application/json", ByteBuffer(string: body), false),
                expected: generated, isApple: true, samplePaths: ["/Ab3x"])
        }
        let wholeHost =
            #"{"applinks": {"apps": [], "details": [{"appIDs": ["\#(appID)"], "components": [{"/": "/_/*", "exclude": true}, {"/": "/*"}]}]}}"#
        let warnings = checks(wholeHost).filter { $0.status == .warning }
        #expect(warnings.count == 1)
        #expect(warnings.first?.message.contains("/console/links") == true && warnings.first?.message.contains("/v1/links") == true)
        #expect(checks(String(decoding: generated, as: UTF8.self)).allSatisfy { $0.status == .pass })
    }

    @Test func printsNoControlCharactersFromWhatItReads() {
        let check = AppDoctor.Check("file\u{1B}[2J", .fail, "value \u{9B}2J \u{202E}txet", fix: "\u{07}")
        #expect(check.subject == "file?[2J")
        #expect(check.message == "value ?2J ?txet")
        #expect(check.fix == "?")
    }

    @Test func refusesADeploymentURLItCannotUse() async {
        for url in ["http://127.0.0.1:99999", "https://go.pictlink.com/links", "ftp://x", "http://user:pw@127.0.0.1:8080"] {
            let result = await Self.doctor(["--url", url])
            #expect(result.error?.exitCode == CLIError.usageExitCode, "\(url)")
        }
    }

    @Test(.measuresTime) func passesAgainstARunningServerForTheRepositoryConfiguration() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-doctor-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try await E.application(database: folder.appending(path: "relink.sqlite").path).test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            let result = await Self.doctor(["--url", server])
            #expect(result.error == nil, "\(result.output)")
            #expect(result.output.filter { $0.hasPrefix("✓") }.count == result.output.count - 1, "\(result.output)")
            #expect(result.output.contains { $0.contains("https://go.pictlink.com/.well-known/apple-app-site-association: 200, application/json") })
            #expect(result.output.contains { $0.contains("assetlinks.json: jp.furyu.pictlink.android with its 2 fingerprint(s)") })

            let json = await Self.doctor(["--url", server, "--json"])
            let checks = try JSONSerialization.jsonObject(with: Data(json.output.joined().utf8)) as? [[String: Any]]
            #expect(checks?.allSatisfy { $0["status"] as? String == "pass" } == true)

            // A configuration the deployment does not serve: a new signing certificate and a new app are named.
            var routes = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: E.routes))) as? [String: Any])
            var projects = try #require(routes["projects"] as? [[String: Any]])
            var android = try #require(projects[0]["android"] as? [[String: Any]])
            var prints = try #require(android[0]["sha256CertFingerprints"] as? [String])
            prints.append(String(repeating: "AB:", count: 31) + "AB")
            android[0]["sha256CertFingerprints"] = prints
            projects[0]["android"] = android
            var ios = try #require(projects[0]["ios"] as? [[String: Any]])
            var newApp = ios[0]
            newApp["bundleId"] = "jp.furyu.pictlink.next"
            ios.append(newApp)
            projects[0]["ios"] = ios
            routes["projects"] = projects
            let changed = folder.appending(path: "routes.json").path
            try JSONSerialization.data(withJSONObject: routes).write(to: URL(fileURLWithPath: changed))
            let stale = await FirebaseMigrationTests.run(["doctor", "--project", "pictlink", "--config", changed, "--url", server])
            #expect(stale.error?.message == "4 check(s) failed", "\(stale.output)")
            #expect(stale.output.contains { $0.contains("apple-app-site-association: does not name the app ABCDE12345.jp.furyu.pictlink.next") })
            #expect(stale.output.contains { $0.contains("assetlinks.json: jp.furyu.pictlink.android lacks the fingerprints AB:AB") })

            // Nobody there: one failure, at once.
            let nobody = await FirebaseMigrationTests.run(["doctor", "--project", "pictlink", "--config", E.routes, "--url", "http://127.0.0.1:9"])
            #expect(nobody.error?.message == "1 check(s) failed")
        }
    }
}
