import Foundation
import RelinkTools
import Testing

@testable import relink

/// FDL's export read strictly: malformed quoting makes its row invalid, with its line, and bytes that are not UTF-8
/// stop the import; either way nothing is written.
@Suite("CSV rows")
struct CSVRowReaderTests {
    typealias M = FirebaseMigrationTests

    /// Every row of `bytes`, read as a file; a failure ends the list.
    static func rows(_ bytes: [UInt8]) throws -> [CSVRowReader.Row] {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-csv-\(UUID()).csv").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try CSVRowReader(path: path)
        var rows: [CSVRowReader.Row] = []
        while let row = try reader.next() { rows.append(row) }
        return rows
    }

    static func rows(_ text: String) throws -> [CSVRowReader.Row] { try rows(Array(text.utf8)) }

    @Test func readsRFC4180() throws {
        let text = "\u{FEFF}a,b,c\r\n\"x,1\",\"say \"\"hi\"\"\",\"two\nlines\"\n,,\n\nlast,\"\"\rend"
        #expect(
            try Self.rows(text) == [
                .fields(["a", "b", "c"]), .fields(["x,1", "say \"hi\"", "two\nlines"]), .fields(["", "", ""]), .fields([""]),
                .fields(["last", ""]), .fields(["end"]),
            ])
    }

    @Test func malformedQuotingIsItsRowsProblemAndTheNextRowIsRead() throws {
        let rows = try Self.rows(
            "h1,h2\n\"https://a.com/1\",\"https://pictlink.com/a\"bc,x\nok,1\nb,\"https://pictlink.com/\"x\"y\"\nc,d\"e\nok,2\n\"open,never closed\n")
        #expect(rows.count == 7)
        #expect(rows[0] == .fields(["h1", "h2"]))
        guard case .malformed(2, let reason) = rows[1] else {
            Issue.record("\(rows[1])")
            return
        }
        #expect(reason.hasPrefix("field 2's closing quote is followed by 'b'"))
        #expect(rows[2] == .fields(["ok", "1"]))
        guard case .malformed(4, let other) = rows[3] else {
            Issue.record("\(rows[3])")
            return
        }
        #expect(other.hasPrefix("field 2's closing quote is followed by 'x'"))
        guard case .malformed(5, let bare) = rows[4] else {
            Issue.record("\(rows[4])")
            return
        }
        #expect(bare.hasPrefix("field 2 has a quote but does not start with one"))
        #expect(rows[5] == .fields(["ok", "2"]))
        #expect(rows[6] == .malformed(line: 7, reason: "field 1's opening quote is never closed"))
    }

    @Test func bytesThatAreNotUTF8StopTheFileAtTheirLine() throws {
        var bytes = Array("a,b\nhttps://go.pictlink.com/x,false,\"caf".utf8)
        bytes += [0xE9] + Array("\",2021\n".utf8)
        #expect(throws: CSVRowReader.Failure(line: 2, reason: "field 3 is not UTF-8 text (save the file as UTF-8)")) {
            try Self.rows(bytes)
        }
    }

    @Test func aRowPastTheCapStopsTheFile() throws {
        let long = "\"" + String(repeating: "a", count: CSVRowReader.maximumRowBytes) + "\n"
        #expect(throws: CSVRowReader.Failure.self) { try Self.rows("h\n" + long) }
    }

    /// The attack's files: each was imported garbled, exit 0. Now every malformed row is listed with its line and
    /// nothing is written, and a Latin-1 byte is the "not UTF-8" error, not a row split in two.
    @Test func importReportsMalformedRowsAndWritesNothing() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-csv-import-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let common = ["--project", "pictlink", "--config", EndToEndTests.routes, "--db", database]
        let tail = ",,,,,,,,,,,,,,,,,,,,,,,,,false,nm,2021-03-04T05:06:07Z"
        let csv = folder.appending(path: "quotes.csv").path
        try Data(
            [
                M.header, "\"https://go.pictlink.com/qa1\",\"https://pictlink.com/a\"bc" + tail,
                "https://go.pictlink.com/qa2,\"https://pictlink.com/\"x\"y\"" + tail, "https://go.pictlink.com/qa3,https://pictlink.com/c" + tail,
            ].joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: csv))

        let refused = await M.run(["import", "firebase", csv] + common)
        #expect(refused.error?.message.hasPrefix("nothing was imported") == true, "\(String(describing: refused.error))")
        #expect(refused.output.first == "3 rows: 1 to import (0 archived), 0 unchanged, 0 updated, 0 conflicts, 2 invalid", "\(refused.output)")
        #expect(refused.output.contains { $0.hasPrefix("  row 2: not valid CSV (line 2): field 2's closing quote is followed by 'b'") })
        #expect(refused.output.contains { $0.hasPrefix("  row 3: not valid CSV (line 3): field 2's closing quote is followed by 'x'") })
        #expect(await M.run(["verify"] + common).output.last == "0 link(s), 0 check(s): 0 difference(s)")

        let valid = await M.run(["import", "firebase", csv, "--continue-on-error"] + common)
        #expect(valid.output.first == "3 rows: 1 imported (0 archived), 0 unchanged, 0 updated, 0 conflicts, 2 invalid", "\(valid.output)")

        var latin1 = Array((M.header + "\nhttps://go.pictlink.com/qa4,https://pictlink.com/d,,,,,,,,,,,,,,,,,,,,,,,,,false,\"caf").utf8)
        latin1 += [0xE9] + Array("\",2021-03-04T05:06:07Z\n".utf8)
        let latin1Path = folder.appending(path: "latin1.csv").path
        try Data(latin1).write(to: URL(fileURLWithPath: latin1Path))
        let notText = await M.run(["import", "firebase", latin1Path, "--continue-on-error"] + common)
        #expect(
            notText.error?.message.contains("could not be read past line 2: field 28 is not UTF-8 text") == true,
            "\(String(describing: notText.error))")
        let verified = await M.run(["verify"] + common)
        #expect(verified.output.contains { $0.hasPrefix("1 link(s)") }, "\(verified.output)")
    }

    /// The re-attack's files (R3, R4): a comma left unquoted shifted every later column, and impossible or trailing
    /// timestamps were rolled over or cut, all imported with exit 0. Now each such row is listed and nothing is written.
    @Test func shiftedRowsAndBadTimestampsAreInvalidAndNothingIsWritten() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-csv-import-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let common = ["--project", "pictlink", "--config", EndToEndTests.routes, "--db", database]
        func line(_ code: String, _ middle: String, timestamp: String) -> String {
            "https://go.pictlink.com/\(code),https://pictlink.com/a,,,,,,,,,,,,," + middle + ",,,,,,,,,,,,false,nm," + timestamp
        }
        let csv = folder.appending(path: "rows.csv").path
        try Data(
            [
                M.header, line("qc1", "Hello, world", timestamp: "2021-03-04T05:06:07Z"),
                "https://go.pictlink.com/qc2,https://pictlink.com/a,,,,,,,,,,,,,,,,,,,,,,,,,false,nm",
                line("tg0", "", timestamp: "2021-02-30T05:06:07Z"), line("tg1", "", timestamp: "2021-03-04T99:99:99Z"),
                line("tg2", "", timestamp: "2021-03-04 anything at all"), line("ok1", "", timestamp: "2021-03-04T05:06:07+23:59"),
            ].joined(separator: "\n").utf8
        ).write(to: URL(fileURLWithPath: csv))

        let refused = await M.run(["import", "firebase", csv] + common)
        #expect(refused.error?.message.hasPrefix("nothing was imported") == true, "\(String(describing: refused.error))")
        #expect(refused.output.first == "6 rows: 1 to import (0 archived), 0 unchanged, 0 updated, 0 conflicts, 5 invalid", "\(refused.output)")
        #expect(refused.output.contains { $0.hasPrefix("  row 2 (https://go.pictlink.com/qc1): the row has 30 fields where the header has 29") })
        #expect(refused.output.contains { $0 == "  row 3 (https://go.pictlink.com/qc2): the row has 28 fields where the header has 29" })
        for row in 4...6 {
            #expect(refused.output.contains { $0.hasPrefix("  row \(row) ") && $0.contains("the creation timestamp must be") }, "\(row)")
        }
        #expect(await M.run(["verify"] + common).output.last == "0 link(s), 0 check(s): 0 difference(s)")
    }
}
