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
