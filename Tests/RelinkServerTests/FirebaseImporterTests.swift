import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer
@testable import RelinkTools

/// FDL's export into the store: exact codes, archived links served, idempotent re-runs, conflicts, invalid rows,
/// and imported links redirecting exactly as their long links do.
@Suite("Firebase import")
struct FirebaseImporterTests {
    typealias T = TestSupport

    static let header = FirebaseExport.Column.documented.map { column -> String in
        switch column {
        case .shortLink: "short_link"
        case .parameter(let parameter): parameter.name
        case .archived: "archived"
        case .name: "name"
        case .creationTimestamp: "creation_timestamp"
        }
    }

    static func row(
        _ code: String, link: String = "https://pictlink.com/a", archived: Bool = false, name: String = "", extra: [String: String] = [:]
    )
        -> [String]
    {
        var values = ["short_link": "https://go.pictlink.com/\(code)", "link": link, "archived": archived ? "true" : "false", "name": name]
        values["apn"] = "jp.furyu.pictlink.android"
        values["ibi"] = "jp.furyu.pictlink.ios"
        values["isi"] = "000000001"
        values["creation_timestamp"] = "2021-03-04T05:06:07Z"
        values.merge(extra) { $1 }
        return header.map { values[$0] ?? "" }
    }

    static func run(
        _ rows: [[String]], store: any RelinkStore, configure: (inout FirebaseImporter.Options) -> Void = { _ in }
    ) async throws -> FirebaseImporter.Summary {
        var options = FirebaseImporter.Options(projectId: "pictlink")
        options.batchSize = 3
        configure(&options)
        let all = [header] + rows
        return try await FirebaseImporter(configuration: T.configuration, store: store).run(options, rows: { Self.rows(all) })
    }

    /// `all`, row by row, as the importer reads a file.
    static func rows(_ all: [[String]]) -> FirebaseImporter.NextRow {
        var iterator = all.makeIterator()
        return { iterator.next() }
    }

    static let rows: [[String]] = [
        row("AbC9", name: "Spring ☀️, \"sale\""), row("abc9", link: "https://pictlink.com/b", archived: true, name: "Archived"),
        row("Zz_-9", link: "https://pictlink.com/c?x=1&y=2", extra: ["utm_source": "mail", "efr": "1"]), row("q1"), row("q2"),
        row("Bad", extra: ["isi": "abc"]), row("Js", link: "javascript:alert(1)"), row("healthz"),
        header.map { $0 == "short_link" ? "https://go.fieldnotes.app/n1" : ($0 == "link" ? "https://fieldnotes.app/n" : "") },
        row("AbC9", link: "https://pictlink.com/other"),
    ]

    /// A link moved from a server without `/metrics` must not land on a code another server serves itself.
    @Test func codesOfRelinksOwnPathsAreRefusedWhateverTheServersOptions() async throws {
        let codes = ["metrics", "readyz", "livez", "openapi"]
        let report = try await Self.run(codes.map { Self.row($0) }, store: try SQLiteStore())
        #expect(!report.written && report.invalid == codes.count)
        #expect(report.problems.map(\.row) == [2, 3, 4, 5])
        #expect(report.problems.allSatisfy { $0.reason.contains("one of Relink's paths") }, "\(report.problems)")
    }

    /// A code that cannot be a short link's is refused with what is wrong with it, and a route that answers its URL named.
    @Test func aCodeThatCannotBeAShortLinksSaysWhy() async throws {
        let codes = ["p/7", "x/y", "a.b", String(repeating: "a", count: 65), ""]
        let report = try await Self.run(codes.map { Self.row($0) }, store: try SQLiteStore())
        #expect(report.invalid == codes.count && !report.written)
        #expect(
            report.problems.map(\.reason) == [
                "its code 'p/7' has a '/': a short link's code is one path segment; "
                    + "the project's route /p/{id} answers https://go.pictlink.com/p/7 already (with https://pictlink.com/product/7)",
                "its code 'x/y' has a '/': a short link's code is one path segment",
                "its code 'a.b' has characters a short link's code cannot have (only A-Z, a-z, 0-9, _ and -)",
                "its code is 65 bytes long: a short link's code has at most 64",
                "'https://go.pictlink.com/' has no code after its domain https://go.pictlink.com",
            ])
        let elsewhere = try await Self.run(
            [Self.header.map { $0 == "short_link" ? "https://go.example.org/Ab3x" : ($0 == "link" ? "https://pictlink.com/a" : "") }],
            store: try SQLiteStore())
        #expect(elsewhere.problems.first?.reason == "'https://go.example.org/Ab3x' is not on a domain of routes.json")
    }

    /// What no FDL short link has is refused rather than dropped: a fragment, a query on a Google domain (the rehomed
    /// link would lose it), and `http://` on an https domain (the link would be listed under another URL).
    @Test func aShortLinkWithAFragmentQueryOrOtherSchemeIsRefused() async throws {
        func shortLink(_ value: String) -> [String] {
            Self.row("x").enumerated().map { index, field in Self.header[index] == "short_link" ? value : field }
        }
        let rows = [
            shortLink("https://go.pictlink.com/frag#x"), shortLink("http://go.pictlink.com/plain"),
            shortLink("https://pictlink.page.link/Old1?utm=a"), shortLink("https://pictlink.page.link/Old2#top"),
        ]
        let report = try await Self.run(rows, store: try SQLiteStore()) { $0.rehome = try? DomainURIPrefix("https://go.pictlink.com") }
        // A reason quotes at most 200 scalars of the link, however they combine into characters.
        let marks = try await Self.run(
            [shortLink("https://go.pictlink.com/x#a" + String(repeating: "\u{301}", count: 5_000))], store: try SQLiteStore())
        #expect(marks.problems.first.map { $0.reason.unicodeScalars.count < 400 } == true, "\(marks.problems.first?.reason.count ?? 0)")
        #expect(!report.written && report.invalid == 4)
        #expect(
            report.problems.map(\.reason) == [
                "'https://go.pictlink.com/frag#x' has a fragment (#…): a short link has none, and browsers do not send it; write it without",
                "'http://go.pictlink.com/plain' is http, and its domain in routes.json is https://go.pictlink.com: write the short link as https",
                "'https://pictlink.page.link/Old1?utm=a' has a query: a short link has none",
                "'https://pictlink.page.link/Old2#top' has a fragment (#…): a short link has none, and browsers do not send it; write it without",
            ])
    }

    /// With a domain to rehome them to, links of a `page.link` domain land there with their codes; without, they are refused.
    @Test func linksOnAGoogleDomainAreRehomedOntoTheProjectsDomain() async throws {
        func google(_ shortLink: String) -> [String] {
            Self.row("x").enumerated().map { index, value in Self.header[index] == "short_link" ? shortLink : value }
        }
        let rows = [google("https://pictlink.page.link/Old1"), google("https://app.goo.gl/Old2"), Self.row("Own")]
        let store = try SQLiteStore()
        let refused = try await Self.run(rows, store: store)
        #expect(refused.invalid == 2 && refused.rehomed == 0)
        #expect(refused.problems.first?.reason.hasPrefix("pictlink.page.link is Google's domain and cannot be moved to Relink") == true)

        var moved: [String] = []
        let rehome = try DomainURIPrefix("https://pictlink.com/links")
        let summary = try await FirebaseImporter(configuration: T.configuration, store: store).run(
            {
                var options = FirebaseImporter.Options(projectId: "pictlink")
                options.rehome = rehome
                return options
            }(), rows: { Self.rows([Self.header] + rows) }, rehomed: { moved.append("\($0) -> \($1)") })
        #expect(summary.written && summary.imported == 3 && summary.rehomed == 2 && summary.invalid == 0)
        #expect(
            moved == [
                "https://pictlink.page.link/Old1 -> https://pictlink.com/links/Old1", "https://app.goo.gl/Old2 -> https://pictlink.com/links/Old2",
            ])
        #expect(try await store.link(domain: "https://pictlink.com/links", code: "Old1")?.parameters.link == "https://pictlink.com/a")
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "Own") != nil)
    }

    /// With `--update`, a rehomed row whose code is another project's link is not written (only the project's own
    /// links are updated), so the old -> new list must not send the old link there.
    /// Imports `row`, its short link replaced by `shortLink` on a Google domain, with `--rehome
    /// https://go.pictlink.com --update`: the summary and the old -> new lines.
    static func rehomeWithUpdate(
        _ row: [String], from shortLink: String, store: any RelinkStore
    ) async throws -> (FirebaseImporter.Summary, [String]) {
        let old = row.enumerated().map { index, value in header[index] == "short_link" ? shortLink : value }
        var options = FirebaseImporter.Options(projectId: "pictlink")
        options.rehome = try DomainURIPrefix("https://go.pictlink.com")
        options.update = true
        var moved: [String] = []
        let summary = try await FirebaseImporter(configuration: T.configuration, store: store).run(
            options, rows: { rows([header, old]) }, rehomed: { moved.append("\($0) -> \($1)") })
        return (summary, moved)
    }

    @Test func aRehomedCodeHeldByAnotherProjectIsNotListedAsMoved() async throws {
        let store = try SQLiteStore()
        // A link of another project on one of pictlink's domains: the domain moved between projects in routes.json.
        var parameters = LinkParameters()
        parameters.link = "https://fieldnotes.app/x"
        let foreign = ShortLinkDraft(
            projectId: "fieldnotes", domain: "https://go.pictlink.com", code: "Old1",
            longLink: "https://go.pictlink.com/?link=https%3A%2F%2Ffieldnotes.app%2Fx", parameters: parameters, suffixOption: .custom,
            idempotencyKey: nil, createdAt: Date())
        #expect(try await store.importLinks([foreign]).isEmpty)
        let (summary, moved) = try await Self.rehomeWithUpdate(Self.row("x"), from: "https://pictlink.page.link/Old1", store: store)
        #expect(summary.updated == 0 && summary.conflicts == 1 && summary.rehomed == 0)
        #expect(moved.isEmpty)
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "Old1")?.projectId == "fieldnotes")
    }

    /// A row moved off a Google domain never overwrites the team's own link with its code, even with --update: the
    /// link stays, the row is a conflict saying why, and it is not listed as moved.
    @Test func aRehomedRowDoesNotOverwriteTheTeamsOwnLink() async throws {
        let store = try SQLiteStore()
        #expect(try await Self.run([Self.row("Abc", link: "https://pictlink.com/own")], store: store).imported == 1)
        let (summary, moved) = try await Self.rehomeWithUpdate(
            Self.row("Abc", link: "https://pictlink.com/old"), from: "https://pictlink.page.link/Abc", store: store)
        #expect(summary.updated == 0 && summary.conflicts == 1 && summary.rehomed == 0)
        #expect(summary.problems.map(\.reason) == [FirebaseImporter.ownLinkHoldsRehomedCode])
        #expect(moved.isEmpty)
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "Abc")?.parameters.link == "https://pictlink.com/own")
    }

    /// A name is held to the API's rule: one over 200 characters refuses its row with the API's reason, and control
    /// characters and line separators (a line break, an escape, U+2028) become spaces and invisible format characters
    /// go, so no name is stored that the API would refuse and that the console or `relink links` would show; 200
    /// characters are taken, as by the API.
    @Test func namesAreHeldToTheAPIsRule() async throws {
        let store = try SQLiteStore()
        let rows = [
            Self.row("N1", name: String(repeating: "é", count: 201)), Self.row("N2", name: "two\nlines"),
            Self.row("N3", name: "\u{1B}[31mred"), Self.row("N4", name: String(repeating: "é", count: 200)), Self.row("N5", name: "a\u{2028}b"),
        ]
        let summary = try await Self.run(rows, store: store) { $0.continueOnError = true }
        #expect(summary.imported == 4 && summary.invalid == 1)
        #expect(summary.problems.map(\.reason) == ["name must be at most 200 characters; got 201."])
        func name(_ code: String) async throws -> String? { try await store.link(domain: "https://go.pictlink.com", code: code)?.name }
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "N1") == nil)
        #expect(try await name("N2") == "two lines")
        #expect(try await name("N3") == " [31mred")
        #expect(try await name("N5") == "a b")
        #expect(try await name("N4")?.unicodeScalars.count == 200)
    }

    @Test func validRowsAreCheckedFirstAndWrittenOnlyWhenAllAre() async throws {
        let store = try SQLiteStore()
        let blocked = try await Self.run(Self.rows, store: store)
        #expect(!blocked.written && blocked.rows == 10 && blocked.invalid == 4 && blocked.conflicts == 1 && blocked.archived == 1)
        #expect(blocked.problems.map(\.row) == [7, 8, 9, 10, 11])
        #expect(blocked.problems[0].reason.contains("'isi' must be the numeric App Store ID"))
        #expect(blocked.problems[2].reason.contains("one of Relink's paths"))
        #expect(blocked.problems[3].reason.contains("belongs to project fieldnotes"))
        #expect(blocked.problems[4].reason == "the code appears earlier in the file")
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "AbC9") == nil)

        let imported = try await Self.run(Self.rows, store: store) { $0.continueOnError = true }
        #expect(imported.written && imported.imported == 5 && imported.unchanged == 0)
        let upper = try #require(try await store.link(domain: "https://go.pictlink.com", code: "AbC9"))
        let lower = try #require(try await store.link(domain: "https://go.pictlink.com", code: "abc9"))
        #expect(upper.parameters.link == "https://pictlink.com/a" && upper.name == "Spring ☀️, \"sale\"" && !upper.archived)
        #expect(lower.parameters.link == "https://pictlink.com/b" && lower.archived && lower.suffixOption == .custom)
        #expect(upper.createdAt == Date(timeIntervalSince1970: 1_614_834_367))

        // Twice in a row: nothing changes.
        let again = try await Self.run(Self.rows, store: store) { $0.continueOnError = true }
        #expect(again.imported == 0 && again.unchanged == 5 && again.conflicts == 1 && again.invalid == 4 && !again.written)
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "AbC9") == upper)
    }

    /// An export without its header row is read in the documented order, its first row a link like the others.
    @Test func aFileWithoutHeaderIsReadByPosition() async throws {
        let store = try SQLiteStore()
        let valid = Array(Self.rows.prefix(5))
        let summary = try await FirebaseImporter(configuration: T.configuration, store: store).run(
            FirebaseImporter.Options(projectId: "pictlink"), rows: { Self.rows(valid) })
        #expect(summary.layout?.hasHeader == false && summary.rows == 5 && summary.imported == 5)
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "AbC9") != nil)
    }

    @Test func aChangedRowIsAConflictUntilUpdated() async throws {
        let store = try SQLiteStore()
        let valid = Array(Self.rows.prefix(5))
        #expect(try await Self.run(valid, store: store).imported == 5)
        var changed = valid
        changed[1] = Self.row("abc9", link: "https://pictlink.com/b2", archived: false, name: "Renamed")
        let conflict = try await Self.run(changed, store: store)
        #expect(!conflict.written && conflict.conflicts == 1 && conflict.unchanged == 4)
        #expect(conflict.problems.first?.reason.contains("exists and differs") == true)
        let dryRun = try await Self.run(changed, store: store) {
            $0.update = true
            $0.dryRun = true
        }
        #expect(!dryRun.written)
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "abc9")?.parameters.link == "https://pictlink.com/b")
        let updated = try await Self.run(changed, store: store) { $0.update = true }
        #expect(updated.written && updated.updated == 1 && updated.conflicts == 0)
        let link = try #require(try await store.link(domain: "https://go.pictlink.com", code: "abc9"))
        #expect(link.parameters.link == "https://pictlink.com/b2" && !link.archived && link.name == "Renamed")
    }

    /// A code twice in the file is for the file's author to settle: `--update` does not (either row could be meant),
    /// only `--continue-on-error` imports the rest.
    @Test func aCodeTwiceInTheFileBlocksTheImportEvenWithUpdate() async throws {
        let store = try SQLiteStore()
        let rows = [Self.row("dupA", link: "https://pictlink.com/first"), Self.row("dupA", link: "https://pictlink.com/second"), Self.row("b1")]
        let updating = try await Self.run(rows, store: store) { $0.update = true }
        #expect(!updating.written && updating.duplicates == 1 && updating.conflicts == 1, "\(updating)")
        #expect(try await store.link(domain: "https://go.pictlink.com", code: "b1") == nil)
        let continuing = try await Self.run(rows, store: store) { $0.continueOnError = true }
        #expect(continuing.written && continuing.imported == 2, "\(continuing)")
    }

    /// The second pass writes what the first one checked; rows it does not write (the file cut short or changed, a
    /// link minted in between) are counted, never passed over in silence, and a run again writes them.
    @Test func rowsTheSecondPassDoesNotWriteAreCounted() async throws {
        let store = try SQLiteStore()
        let valid = Array(Self.rows.prefix(5))
        var passes = 0
        let cutShort = try await FirebaseImporter(configuration: T.configuration, store: store).run(
            FirebaseImporter.Options(projectId: "pictlink"),
            rows: {
                passes += 1
                return Self.rows(passes == 1 ? [Self.header] + valid : [Self.header] + valid.prefix(2))
            })
        #expect(cutShort.written && cutShort.imported == 2 && cutShort.notWritten == 3, "\(cutShort)")

        let again = try await Self.run(valid, store: store)
        #expect(again.imported == 3 && again.unchanged == 2 && again.notWritten == 0, "\(again)")
    }

    /// Every imported code, archived ones too, redirects each client exactly where its long link does.
    @Test func importedLinksRedirectAsTheirLongLinks() async throws {
        let store = try SQLiteStore()
        let valid = Array(Self.rows.prefix(5))
        #expect(try await Self.run(valid, store: store).imported == 5)
        try await T.application(store: store).test(.router) { client in
            for row in valid {
                let code = String(row[0].dropFirst("https://go.pictlink.com".count))
                let record = try #require(try await store.link(domain: "https://go.pictlink.com", code: String(code.dropFirst())))
                let long = String(record.longLink.dropFirst("https://go.pictlink.com".count))
                for agent in [T.Agent.iPhone, T.Agent.android, T.Agent.desktop, T.Agent.crawler] {
                    let viaCode = try await client.execute(uri: code, method: .get, headers: T.headers(agent: agent))
                    let viaLong = try await client.execute(uri: long, method: .get, headers: T.headers(agent: agent))
                    #expect(viaCode.status == viaLong.status, "\(code) \(agent)")
                    #expect(
                        T.withoutClickID(viaCode.headers[.location] ?? "") == T.withoutClickID(viaLong.headers[.location] ?? ""), "\(code) \(agent)")
                }
            }
        }
    }
}
