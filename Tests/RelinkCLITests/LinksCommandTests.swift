import Foundation
import HummingbirdTesting
import Testing

@testable import relink

/// `relink links list` and `show` against a live server: names and the archived flag from an FDL export.
@Suite("Links from the CLI")
struct LinksCommandTests {
    typealias E = EndToEndTests
    typealias M = FirebaseMigrationTests

    @Test func listAndShowGiveNamesAndTheArchivedFlag() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-links-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let csv = folder.appending(path: "export.csv").path
        func row(_ code: String, archived: Bool, name: String) -> String {
            var fields = Array(repeating: "", count: 29)
            fields[0] = "https://go.pictlink.com/\(code)"
            fields[1] = "https://pictlink.com/\(code)"
            fields[26] = archived ? "true" : "false"
            fields[27] = name
            return fields.joined(separator: ",")
        }
        try [M.header, row("Arch1", archived: true, name: "\"Spring, sale\""), row("Live1", archived: false, name: ""), ""]
            .joined(separator: "\r\n").write(toFile: csv, atomically: true, encoding: .utf8)
        let imported = await M.run(["import", "firebase", csv, "--project", "pictlink", "--config", E.routes, "--db", database])
        #expect(imported.error == nil, "\(String(describing: imported.error))")
        let key = try #require(try await E.run(["keys", "create", "--project", "pictlink", "--config", E.routes, "--db", database]).first)

        try await E.application(database: database).test(.live) { client in
            let server = ["--server", "http://127.0.0.1:\(try #require(client.port))", "--key", key]
            let list = try await E.run(["links", "list"] + server)
            let header = try #require(list.first?.split(separator: "\n").first)
            #expect(header.split(separator: " ", omittingEmptySubsequences: true) == ["SHORT", "LINK", "NAME", "STATE", "CREATED", "DESTINATION"])
            let lines = list.joined(separator: "\n").split(separator: "\n")
            let archived = try #require(lines.first { $0.hasPrefix("https://go.pictlink.com/Arch1 ") })
            let live = try #require(lines.first { $0.hasPrefix("https://go.pictlink.com/Live1 ") })
            #expect(archived.contains("Spring, sale") && archived.contains(" archived ") && !archived.contains("active"), "\(archived)")
            #expect(live.contains(" - ") && live.contains(" active "), "\(live)")

            let shown = try await E.run(["links", "show", "https://go.pictlink.com/Arch1"] + server).joined()
            #expect(shown.contains(#""archived" : true"#) && shown.contains(#""name" : "Spring, sale""#), "\(shown)")
            let plain = try await E.run(["links", "show", "https://go.pictlink.com/Live1"] + server).joined()
            #expect(plain.contains(#""archived" : false"#) && !plain.contains(#""name""#), "\(plain)")
        }
    }

    /// A name stays in its cell: a line break, U+2028 or a right-to-left override in it (the API takes the latter two)
    /// would move or reverse the state and destination printed after it.
    @Test func aNameCannotBreakOrReverseItsLine() {
        #expect(LinksCommand.cell("a\u{202E}lmth.evil\u{2028}b\u{2066}c\u{2069}\nd\u{1B}") == "a lmth.evil b c  d ")
        #expect(LinksCommand.cell("Spring سالة ☀️") == "Spring سالة ☀️")
    }
}
