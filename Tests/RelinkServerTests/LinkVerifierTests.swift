import Foundation
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer
@testable import RelinkTools

/// `relink verify`: FDL's rules next to Relink's planner for every imported link and every kind of client.
@Suite("Link verification")
struct LinkVerifierTests {
    typealias T = TestSupport
    typealias I = FirebaseImporterTests

    /// The test project without defaults of its own, so its links behave as they did in FDL.
    static var plain: RelinkConfiguration {
        var configuration = T.configuration
        configuration.projects[0].defaults.desktopFallbackLink = nil
        configuration.projects[0].defaults.forcedRedirect = false
        configuration.projects[0].defaults.socialTitle = nil
        configuration.projects[0].defaults.socialDescription = nil
        configuration.projects[0].defaults.socialImageLink = nil
        return configuration
    }

    static let rows: [[String]] =
        Array(I.rows.prefix(5)) + [
            I.row("noApps", extra: ["apn": "", "ibi": "", "isi": ""]),
            I.row(
                "fallbacks",
                extra: [
                    "ifl": "https://pictlink.com/ios", "afl": "https://pictlink.com/android", "ofl": "https://pictlink.com/desk",
                    "ipfl": "https://pictlink.com/ipad",
                ]),
            I.row("card", extra: ["st": "Title", "si": "https://pictlink.com/i.png", "at": "1l3v", "ct": "c a&b"]),
            I.row("store", archived: true, extra: ["efr": "1", "ipbi": "jp.furyu.pictlink.ipad"]),
        ]

    @Test func aCleanImportBehavesAsFirebaseDid() async throws {
        let store = try SQLiteStore()
        var options = FirebaseImporter.Options(projectId: "pictlink")
        options.batchSize = 4
        let all = [I.header] + Self.rows
        let summary = try await FirebaseImporter(configuration: Self.plain, store: store).run(options, rows: { I.rows(all) })
        #expect(summary.imported == 9)
        let report = try await LinkVerifier(configuration: Self.plain, store: store).verify(projectId: "pictlink", pageSize: 4)
        #expect(report.links == 9 && report.checks == 45)
        #expect(report.differenceCount == 0, "\(report.differences)")
    }

    /// A project default FDL never had (the desktop fallback of routes.json) is found on every link it changes.
    @Test func aDifferenceIsFoundAndListed() async throws {
        let store = try SQLiteStore()
        let all = [I.header] + Self.rows
        _ = try await FirebaseImporter(configuration: Self.plain, store: store).run(
            FirebaseImporter.Options(projectId: "pictlink"), rows: { I.rows(all) })
        let report = try await LinkVerifier(configuration: T.configuration, store: store).verify(projectId: "pictlink")
        // Every link without its own ofl, on the desktop (and for the crawler, on links without a card).
        let desktop = report.differences.filter { $0.client == .desktop }
        #expect(desktop.count == 8 && !desktop.contains { $0.shortLink.hasSuffix("/fallbacks") })
        #expect(desktop.allSatisfy { $0.relink == .redirect("https://pictlink.com") })
        #expect(report.differenceCount == report.differences.count && report.differenceCount > 8)
        // Each difference is put down to the project setting that makes it: the sample's defaults, not the links.
        #expect(desktop.allSatisfy { $0.causes == [.desktopFallbackLink] })
        let crawler = report.differences.filter { $0.client == .crawler }
        // A crawler on a link without its own card: FDL redirected it to the link; here it gets the project's card,
        // and without that card it would go to the desktop fallback: both settings make the difference.
        #expect(!crawler.isEmpty && crawler.allSatisfy { $0.causes == [.socialDefaults] || $0.causes == [.desktopFallbackLink, .socialDefaults] })
        #expect(report.causes[[]] == nil)
        #expect(report.causes.values.reduce(0, +) == report.differenceCount)
        // A disabled link is a difference on every client: FDL served it.
        var disabled = try #require(try await store.link(domain: "https://go.pictlink.com", code: "q1"))
        disabled.disabled = true
        _ = try await store.updateLink(id: disabled.id) { [disabled] _ in disabled }
        let after = try await LinkVerifier(configuration: Self.plain, store: store).verify(projectId: "pictlink")
        #expect(after.differenceCount == 5 && after.differences.allSatisfy { $0.shortLink.hasSuffix("/q1") })
        #expect(after.causes == [[]: 5])
    }

    @Test func outcomesCompareWithoutEncodingOrTheClickReferrer() {
        #expect(
            FirebaseRules.Outcome.redirect("https://a.com/?b=2&a=%20").normalized
                == FirebaseRules.Outcome.redirect("https://a.com/?a= &b=2").normalized)
        #expect(
            FirebaseRules.Outcome.redirect("https://play.google.com/store/apps/details?id=x&referrer=relink_click%3Dabc").normalized
                == FirebaseRules.Outcome.redirect("https://play.google.com/store/apps/details?id=x").normalized)
        #expect(FirebaseRules.Outcome.redirect("https://a.com/x").normalized != FirebaseRules.Outcome.redirect("https://a.com/y").normalized)
    }
}
