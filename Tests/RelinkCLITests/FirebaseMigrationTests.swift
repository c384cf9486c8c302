import ArgumentParser
import Foundation
import HummingbirdTesting
import Logging
import RelinkCore
import RelinkServer
import RelinkStore
import Testing

@testable import relink

/// The whole migration path on a generated export: a dry run, an import refused for its bad rows, the valid rows
/// imported, the same import again changing nothing, and `relink verify` passing on the result and finding a
/// difference a project setting makes.
@Suite("Migration from Firebase")
struct FirebaseMigrationTests {
    typealias E = EndToEndTests

    static let header =
        "short_link,link,apn,afl,amv,ibi,ifl,ius,ipfl,ipbi,isi,imv,efr,ofl,st,sd,si,utm_source,utm_medium,utm_campaign,utm_term,utm_content,at,ct,mt,pt,archived,name,creation_timestamp"

    /// `rows` valid links (mixed-case codes, a tenth archived, unicode titles, names with commas, quotes and a line
    /// break) and four invalid ones (a bad `isi`, a `javascript:` link, another project's domain, a `page.link` domain).
    static func export(rows: Int) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
        func quoted(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
        var lines = [header]
        for index in 0..<rows {
            var code = ""
            var n = index * 7919 + 12345
            for _ in 0..<6 {
                code.append(alphabet[n % alphabet.count])
                n /= alphabet.count
            }
            // The same letters in another case are another link, as in FDL.
            if index % 50 == 0 { code = String(code.reversed()) }
            let archived = index % 10 == 0 ? "true" : "false"
            let name = index == 7 ? quoted("line one\nline \"two\", three") : quoted("Campaña \(index), ☀️")
            var fields = Array(repeating: "", count: 29)
            fields[0] = "https://go.pictlink.com/\(code)"
            fields[1] = "https://pictlink.com/p/\(index)?from=mail"
            fields[2] = "jp.furyu.pictlink.android"
            fields[5] = "jp.furyu.pictlink.ios"
            fields[10] = "000000001"
            fields[14] = quoted("Título \(index) \"ok\"")
            if index % 3 == 0 { fields[12] = "1" }
            if index % 4 == 0 { fields[13] = "https://pictlink.com/desktop" }
            fields[26] = archived
            fields[27] = name
            fields[28] = String(1_600_000_000 + index)
            lines.append(fields.joined(separator: ","))
        }
        lines.append("https://go.pictlink.com/BadIsi,https://pictlink.com/x,,,,jp.furyu.pictlink.ios,,,,,abc,,,,,,,,,,,,,,,,false,,")
        lines.append("https://go.pictlink.com/Script,javascript:alert(1),,,,,,,,,,,,,,,,,,,,,,,,,false,,")
        lines.append("https://go.fieldnotes.app/Other,https://fieldnotes.app/x,,,,,,,,,,,,,,,,,,,,,,,,,false,,")
        lines.append("https://pictlink.page.link/Old,https://pictlink.com/x,,,,,,,,,,,,,,,,,,,,,,,,,false,,")
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The repository's routes.json without pictlink's defaults (the project as FDL had it), written in `folder`.
    static func routesAsFirebaseHadThem(in folder: URL) throws -> String {
        var routes = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: E.routes))) as? [String: Any])
        var projects = try #require(routes["projects"] as? [[String: Any]])
        projects[0]["defaults"] = nil
        routes["projects"] = projects
        let plain = folder.appending(path: "routes.json").path
        try JSONSerialization.data(withJSONObject: routes).write(to: URL(fileURLWithPath: plain))
        return plain
    }

    /// Runs a command in-process: what it printed, and the error it ended with, if any.
    static func run(_ arguments: [String]) async -> (output: [String], error: CLIError?) {
        let (output, _, error) = await InProcessCommand.run(arguments)
        return (output, error.map { $0 as? CLIError ?? CLIError(message: "\($0)") })
    }

    @Test func importThenVerifyAGeneratedExport() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-migration-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let csv = folder.appending(path: "go.pictlink.com.csv").path
        try Self.export(rows: 300).write(toFile: csv, atomically: true, encoding: .utf8)
        let plain = try Self.routesAsFirebaseHadThem(in: folder)
        let common = ["--project", "pictlink", "--config", plain, "--db", database]

        // A file that stops being text half-way is refused, not taken for a shorter file.
        var broken = Data(Self.export(rows: 20).utf8)
        broken.insert(contentsOf: [0xFF, 0xFE, 0xC3], at: broken.count / 2)
        let brokenPath = folder.appending(path: "broken.csv").path
        try broken.write(to: URL(fileURLWithPath: brokenPath))
        let unreadable = await Self.run(["import", "firebase", brokenPath, "--continue-on-error"] + common)
        #expect(unreadable.error?.message.contains("could not be read past line ") == true, "\(String(describing: unreadable.error))")
        #expect(unreadable.error?.message.contains("is not UTF-8 text") == true, "\(String(describing: unreadable.error))")
        #expect(await Self.run(["verify"] + common).output.last == "0 link(s), 0 check(s): 0 difference(s)")

        // Checked first: three bad rows, so nothing is written without --continue-on-error.
        #expect(await Self.run(["import", "firebase", csv, "--dry-run"] + common).error?.message == "dry run: 4 invalid row(s) and 0 conflict(s)")
        #expect(await Self.run(["import", "firebase", csv] + common).error?.message.hasPrefix("nothing was imported") == true)
        #expect(await Self.run(["verify"] + common).output.last == "0 link(s), 0 check(s): 0 difference(s)")

        let imported = await Self.run(["import", "firebase", csv, "--continue-on-error"] + common)
        #expect(imported.error?.message.hasPrefix("imported what was valid; 4 invalid row(s)") == true)
        #expect(imported.output.first == "304 rows: 300 imported (30 archived), 0 unchanged, 0 updated, 0 conflicts, 4 invalid")
        #expect(imported.output.contains { $0.hasPrefix("  row 303 (https://go.pictlink.com/Script): 'link' must be an http or https URL") })
        #expect(
            imported.output.contains {
                $0.hasPrefix("  row 305 (https://pictlink.page.link/Old): pictlink.page.link is Google's domain and cannot be moved to Relink")
            })

        let again = await Self.run(["import", "firebase", csv, "--continue-on-error"] + common)
        #expect(again.output.first == "304 rows: 0 to import (0 archived), 300 unchanged, 0 updated, 0 conflicts, 4 invalid")

        let verified = await Self.run(["verify"] + common)
        #expect(verified.error == nil)
        #expect(verified.output.last == "300 link(s), 1500 check(s): 0 difference(s)")
        // With routes.json's own desktop fallback, links without ofl go elsewhere on desktops than in FDL.
        let differences = await Self.run(["verify", "--project", "pictlink", "--config", E.routes, "--db", database])
        #expect(differences.error?.message.hasSuffix("difference(s) from Firebase Dynamic Links' behaviour") == true)
        #expect(differences.output.joined(separator: "\n").contains("desktop"))
        // ...and it says which setting makes them, and what to do for FDL's behaviour.
        #expect(
            differences.output.contains { $0.hasPrefix("  ") && $0.contains("from defaults.desktopFallbackLink in routes.json: desktops go to it") })
        #expect(!differences.output.contains { $0.contains("from the links themselves") }, "\(differences.output.suffix(4))")
    }

    /// `--rehome`: the export's `pictlink.page.link` row lands on the team's domain with its code, and the old -> new
    /// list is printed, or written as CSV; a domain that is not the project's is refused before anything is read.
    @Test func rehomeMovesGoogleDomainLinksOntoTheProjectsDomain() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-rehome-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let csv = folder.appending(path: "export.csv").path
        let map = folder.appending(path: "moved.csv").path
        try Self.export(rows: 3).write(toFile: csv, atomically: true, encoding: .utf8)
        let common = ["import", "firebase", csv, "--project", "pictlink", "--config", E.routes, "--db", database, "--continue-on-error"]

        for domain in ["https://go.fieldnotes.app", "https://pictlink.page.link", "go.pictlink.com"] {
            let refused = await Self.run(common + ["--rehome", domain])
            #expect(refused.error?.exitCode == CLIError.usageExitCode, "\(domain)")
            #expect(
                refused.error?.message == "--rehome must be one of project pictlink's domains (https://go.pictlink.com, https://pictlink.com/links)")
        }
        #expect(await Self.run(common + ["--rehome-map", map]).error?.exitCode == CLIError.usageExitCode)

        let moved = await Self.run(common + ["--rehome", "https://go.pictlink.com", "--rehome-map", map])
        #expect(moved.output.first == "7 rows: 4 imported (1 archived), 0 unchanged, 0 updated, 0 conflicts, 3 invalid", "\(moved.output)")
        #expect(moved.output.contains("1 link(s) of a Google domain moved to https://go.pictlink.com, each with its code"))
        #expect(try String(contentsOfFile: map, encoding: .utf8) == "old,new\nhttps://pictlink.page.link/Old,https://go.pictlink.com/Old\n")
        let link = try await SQLiteStore(path: database).link(domain: "https://go.pictlink.com", code: "Old")
        #expect(link?.parameters.link == "https://pictlink.com/x")

        // Again, printing the list: the link is already there.
        let again = await Self.run(common + ["--rehome", "https://go.pictlink.com"])
        #expect(again.output.first == "https://pictlink.page.link/Old -> https://go.pictlink.com/Old", "\(again.output)")
        #expect(again.output.contains("1 link(s) of a Google domain moved to https://go.pictlink.com, each with its code"))
    }

    /// The map's fields are quoted by byte: a `,` or `"` with a combining mark after it is still one for a CSV reader.
    @Test func rehomeMapFieldsAreQuotedByByte() {
        typealias Map = ImportFirebaseCommand.RehomeMap
        #expect(Map.field("https://go.pictlink.com/Old") == "https://go.pictlink.com/Old")
        #expect(Map.field("https://x/a,\u{301}b") == "\"https://x/a,\u{301}b\"")
        #expect(Map.field("https://x/\"\u{301}") == "\"https://x/\"\"\u{301}\"")
        #expect(Map.field("a\r\nb") == "\"a\r\nb\"")
    }

    /// The export is read twice, so a pipe is refused before anything is read; `--rehome-map` never replaces a file,
    /// least of all the export named by a slip.
    @Test func refusesAPipeAndAnExistingMapFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-import-files-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let csv = folder.appending(path: "export.csv").path
        let export = Self.export(rows: 3)
        try export.write(toFile: csv, atomically: true, encoding: .utf8)
        let fifo = folder.appending(path: "export.fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let common = ["--project", "pictlink", "--config", E.routes, "--db", database, "--continue-on-error"]

        let piped = await Self.run(["import", "firebase", fifo] + common)
        #expect(piped.error?.message.contains("is not a regular file") == true, "\(piped)")

        // A file without rows (emptied, or the header alone) is not an import that went well.
        let headerOnly = folder.appending(path: "header.csv").path
        try (Self.header + "\n").write(toFile: headerOnly, atomically: true, encoding: .utf8)
        let empty = await Self.run(["import", "firebase", headerOnly] + common)
        #expect(empty.error?.message == "'\(headerOnly)' has no rows: nothing was imported (is it the export?)", "\(empty)")

        for map in [csv, folder.appending(path: "notes.txt").path] {
            if map != csv { try "keep me".write(toFile: map, atomically: true, encoding: .utf8) }
            let before = try String(contentsOfFile: map, encoding: .utf8)
            let refused = await Self.run(["import", "firebase", csv] + common + ["--rehome", "https://go.pictlink.com", "--rehome-map", map])
            #expect(refused.error?.message == "'\(map)' exists: --rehome-map writes a new file; remove it or name another")
            #expect(try String(contentsOfFile: map, encoding: .utf8) == before)
        }
    }

    /// `relink verify --url` against a live server gives the offline answer, line for line, for a project as FDL had
    /// it (no difference) and with routes.json's defaults (differences); with a key the checks are not counted.
    @Test func verifyOverHTTPAgreesWithThePlanner() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-verify-url-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let csv = folder.appending(path: "export.csv").path
        try Self.export(rows: 60).write(toFile: csv, atomically: true, encoding: .utf8)
        let plain = try Self.routesAsFirebaseHadThem(in: folder)
        _ = await Self.run(["import", "firebase", csv, "--continue-on-error", "--project", "pictlink", "--config", plain, "--db", database])
        let key = try #require(try await E.run(["keys", "create", "--project", "pictlink", "--config", plain, "--db", database]).first)
        let fieldnotesKey = try #require(
            try await E.run(["keys", "create", "--project", "fieldnotes", "--config", plain, "--db", database]).first)

        for (config, differences) in [(plain, false), (E.routes, true)] {
            let common = ["verify", "--project", "pictlink", "--config", config, "--db", database]
            let offline = await Self.run(common)
            #expect((offline.error != nil) == differences)
            #expect(offline.output.contains { $0.hasPrefix("60 link(s), 300 check(s)") })
            let relink = try RelinkConfiguration(json: Data(contentsOf: URL(fileURLWithPath: config)))
            let app = try buildApplication(
                configuration: ServerConfiguration(
                    host: "127.0.0.1", port: 0, relink: relink, logLevel: .error, store: try SQLiteStore(path: database)))
            try await app.test(.live) { client in
                let server = "http://127.0.0.1:\(try #require(client.port))"
                let online = await Self.run(common + ["--url", server, "--key", key, "--concurrency", "4"])
                #expect(online.output == offline.output)
                #expect(online.error?.message == offline.error?.message)
                // Not one of those 300 requests was counted.
                let shortLink = "https://go.pictlink.com/" + String(try #require(try csvCode(csv, row: 1)))
                let stats = try await E.run(["stats", shortLink, "--days", "1", "--json", "--crawlers", "--server", server, "--key", key])
                #expect(E.counts(stats).isEmpty, "\(stats)")

                // A key of another project, or none, is refused before anything is counted.
                let foreign = await Self.run(common + ["--url", server, "--key", fieldnotesKey])
                #expect(foreign.error?.message.contains("403") == true, "\(String(describing: foreign.error))")
                let wrong = await Self.run(common + ["--url", server, "--key", "rl_wrong"])
                #expect(wrong.error?.message.contains("401") == true, "\(String(describing: wrong.error))")
                let keyless = await Self.run(common + ["--url", server])
                #expect(keyless.error?.message.contains("--count-clicks") == true)
                #expect(
                    E.counts(try await E.run(["stats", shortLink, "--days", "1", "--json", "--crawlers", "--server", server, "--key", key])).isEmpty)
            }
        }
        let badURL = await Self.run([
            "verify", "--project", "pictlink", "--config", plain, "--db", database, "--url", "https://go.example.com/links", "--key", key,
        ])
        #expect(badURL.error?.message.hasPrefix("--url takes a deployment's scheme, host and port only") == true)
        // A good --url with a project the file does not have, or a database that cannot be opened: that error, the
        // probe made for the URL shut down on the way out.
        let unknownProject = await Self.run([
            "verify", "--project", "nosuchproject", "--config", plain, "--db", database, "--url", "https://go.example.com", "--key", key,
        ])
        #expect(unknownProject.error?.message.contains("nosuchproject") == true, "\(String(describing: unknownProject.error))")
        let noDatabase = await Self.run([
            "verify", "--project", "pictlink", "--config", plain, "--db", folder.appending(path: "missing/relink.sqlite").path, "--url",
            "https://go.example.com", "--key", key,
        ])
        #expect(noDatabase.error != nil)
    }

    /// The code of a row of the generated export.
    func csvCode(_ path: String, row: Int) throws -> Substring? {
        let line = try String(contentsOfFile: path, encoding: .utf8).components(separatedBy: "\r\n")[row]
        return line.split(separator: ",").first?.split(separator: "/").last
    }
}
