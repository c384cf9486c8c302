import Foundation
import Testing

@testable import RelinkCore

@Suite("Firebase export rows")
struct FirebaseExportTests {
    static let header =
        "short_link,link,apn,afl,amv,ibi,ifl,ius,ipfl,ipbi,isi,imv,efr,ofl,st,sd,si,utm_source,utm_medium,utm_campaign,utm_term,utm_content,at,ct,mt,pt,archived,name,creation_timestamp"
        .split(separator: ",").map(String.init)

    static func fields(_ values: [String: String]) -> [String] {
        header.map { values[$0] ?? "" }
    }

    @Test func theDocumentedHeaderMapsEveryColumnByName() {
        let layout = FirebaseExport.layout(firstRow: Self.header)
        #expect(layout.hasHeader && !layout.byPosition && layout.unknownColumns.isEmpty)
        #expect(layout.columns.count == 29)
        #expect(layout.columns[0] == .shortLink && layout.columns[1] == .parameter(.link) && layout.columns[17] == .parameter(.utmSource))
        #expect(layout.columns[25] == .parameter(.pt) && layout.columns[26] == .archived && layout.columns[28] == .creationTimestamp)
        #expect(FirebaseExport.Column.documented.count == 29)
    }

    @Test func reorderedAndRewordedHeadersStillMapAndStrangersAreReported() {
        let layout = FirebaseExport.layout(firstRow: ["Link", "Short Link", "Archived?", "Campaign owner", "UTM Source", "Link name"])
        #expect(!layout.byPosition)
        #expect(layout.columns == [0: .parameter(.link), 1: .shortLink, 2: .archived, 4: .parameter(.utmSource), 5: .name])
        #expect(layout.unknownColumns.map(\.column) == [4] && layout.unknownColumns.map(\.name) == ["Campaign owner"])
    }

    @Test func noHeaderOrAnUnreadableOneMeansTheDocumentedOrder() {
        let bare = FirebaseExport.layout(firstRow: ["https://go.example.com/Ab3x", "https://example.com/a"])
        #expect(!bare.hasHeader && bare.byPosition && bare.columns[0] == .shortLink && bare.columns[1] == .parameter(.link))
        let localized = FirebaseExport.layout(firstRow: ["Kurzlink", "Ziel", "apn"])
        #expect(localized.hasHeader && localized.byPosition && localized.unknownColumns.count == 3)
    }

    @Test func aRowKeepsItsCodeItsParametersAndItsFlags() throws {
        let layout = FirebaseExport.layout(firstRow: Self.header)
        let row = try FirebaseExport.row(
            Self.fields([
                "short_link": "https://go.example.com/AbC9x", "link": "https://example.com/spring?a=1&b=2", "ibi": "com.example.ios",
                "isi": "123456789", "utm_campaign": "Spring ☀️ \"sale\"", "archived": "TRUE", "name": "  Spring, 2021 ",
                "creation_timestamp": "2021-03-04T05:06:07Z",
            ]), layout: layout)
        #expect(row.shortLink == "https://go.example.com/AbC9x")
        #expect(row.parameters.link == "https://example.com/spring?a=1&b=2" && row.parameters.ibi == "com.example.ios")
        #expect(row.parameters.utmCampaign == "Spring ☀️ \"sale\"" && row.parameters.apn == nil)
        #expect(row.archived && row.name == "  Spring, 2021 ")
        #expect(row.createdAt == Date(timeIntervalSince1970: 1_614_834_367))
    }

    @Test(arguments: [
        ("1614834367", 1_614_834_367.0), ("1614834367000", 1_614_834_367.0), ("2021-03-04T05:06:07.250Z", 1_614_834_367.25),
        ("2021-03-04T06:06:07+01:00", 1_614_834_367.0), ("2021-03-04", 1_614_816_000.0),
    ])
    func timestampsAreISOOrEpoch(_ text: String, _ seconds: Double) {
        #expect(FirebaseExport.timestamp(Substring(text)) == Date(timeIntervalSince1970: seconds))
    }

    /// Read strictly: a time Foundation's reader rolled over into another day, or a date followed by anything, is
    /// refused rather than imported as some other time.
    @Test(arguments: [
        "2021-02-30T05:06:07Z", "2021-03-04T05:06:60Z", "2021-03-04T99:99:99Z", "2021-03-04 anything at all", "2021-03-04 05:06:07Z",
        "2021-03-04T05:06:07", "2021-02-29", "2021-3-4", "2021-03-04x", "1e9", "+1614834367", "1614834367.5", "0x60410CFF",
        "16148343670000", "2000-12-31T23:59:59Z", "2100-01-01", "9999999999",
    ])
    func impossibleOrTrailingTimestampsAreRefused(_ text: String) {
        #expect(FirebaseExport.timestamp(Substring(text)) == nil)
    }

    @Test func offsetsRFC3339AllowsAreRead() {
        #expect(FirebaseExport.timestamp("2021-03-04T05:06:07+23:59") == Date(timeIntervalSince1970: 1_614_748_027))
        #expect(FirebaseExport.timestamp("2020-02-29") == Date(timeIntervalSince1970: 1_582_934_400))
    }

    @Test func aRowWithABadTimestampIsInvalidWithTheValue() {
        let layout = FirebaseExport.layout(firstRow: Self.header)
        let fields = Self.fields(["short_link": "https://g.co/a", "creation_timestamp": "2021-02-30T05:06:07Z"])
        #expect(throws: FirebaseExport.RowProblem.self) { try FirebaseExport.row(fields, layout: layout) }
        do {
            _ = try FirebaseExport.row(fields, layout: layout)
        } catch {
            #expect(error.message.contains("creation timestamp") && error.message.hasSuffix("got '2021-02-30T05:06:07Z'"), "\(error.message)")
        }
    }

    /// A comma left unquoted (or a field dropped) would shift every later column: the row is refused with both counts.
    @Test func aRowWithAnotherFieldCountThanTheFirstIsRefused() {
        let layout = FirebaseExport.layout(firstRow: Self.header)
        #expect(layout.fieldCount == 29)
        var fields = Self.fields(["short_link": "https://g.co/a", "link": "https://example.com", "st": "Hello", "archived": "false"])
        fields.insert(" world", at: 15)
        #expect(throws: FirebaseExport.RowProblem("the row has 30 fields where the header has 29 (is a field holding a comma not quoted?)")) {
            try FirebaseExport.row(fields, layout: layout)
        }
        #expect(throws: FirebaseExport.RowProblem("the row has 28 fields where the header has 29")) {
            try FirebaseExport.row(Array(fields.prefix(28)), layout: layout)
        }

        // Without a header, the first row fixes the count, and rows are read by position only with the export's 29.
        let link = ["https://g.co/a", "https://example.com"] + Array(repeating: "", count: 27)
        let bare = FirebaseExport.layout(firstRow: link)
        #expect(throws: Never.self) { try FirebaseExport.row(link, layout: bare) }
        let short = FirebaseExport.layout(firstRow: Array(link.prefix(5)))
        #expect(throws: FirebaseExport.RowProblem("the row has 5 fields where the export has 29, and the first row does not name its columns")) {
            try FirebaseExport.row(Array(link.prefix(5)), layout: short)
        }
        // A header naming its columns may name fewer.
        let named = FirebaseExport.layout(firstRow: ["Short Link", "Link"])
        #expect(throws: Never.self) { try FirebaseExport.row(["https://g.co/a", "https://example.com"], layout: named) }
    }

    @Test func unreadableRowsSayWhy() {
        let layout = FirebaseExport.layout(firstRow: Self.header)
        for (values, reason) in [
            (["link": "https://example.com"], "no short link"), (["short_link": "https://g.co/a", "archived": "maybe"], "archived must be"),
            (["short_link": "https://g.co/a", "creation_timestamp": "yesterday"], "creation timestamp"),
            (["short_link": "https://g.co/a", "creation_timestamp": "99999999999999999"], "creation timestamp"),
        ] {
            #expect(throws: FirebaseExport.RowProblem.self) { try FirebaseExport.row(Self.fields(values), layout: layout) }
            do {
                _ = try FirebaseExport.row(Self.fields(values), layout: layout)
            } catch {
                #expect(error.message.contains(reason), "\(values)")
            }
        }
        // Booleans in every spelling FDL's exports have been seen with.
        for (text, flag) in [("1", true), ("0", false), ("yes", true), ("No", false), ("false", false), ("", false)] {
            let row = try? FirebaseExport.row(Self.fields(["short_link": "https://g.co/a", "archived": text]), layout: layout)
            #expect(row?.archived == flag, "\(text)")
        }
    }
}
