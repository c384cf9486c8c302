import ArgumentParser
import Foundation
import RelinkCore
import Testing

@testable import relink

@Suite("CLI commands")
struct CommandTests {
    /// Parses and runs a command line as `relink` would, returning the exit code it would end with.
    static func exitCode(_ arguments: [String]) -> Int32 {
        do {
            var command = try Relink.parseAsRoot(arguments)
            try Console.$capture.withValue(Console.Capture()) { try command.run() }
            return 0
        } catch let error as CLIError {
            return error.exitCode
        } catch {
            let code = Relink.exitCode(for: error)
            return code == .validationFailure ? CLIError.usageExitCode : code.rawValue
        }
    }

    static let sample = [
        "--domain", "https://go.pictlink.com", "--link", "https://pictlink.com/myPage", "--apn", "jp.furyu.pictlink.android",
        "--ibi", "jp.furyu.pictlink.ios", "--ius", "pictlink", "--isi", "000000001",
    ]

    /// Every command and subcommand, depth first.
    static func allCommands(_ command: any ParsableCommand.Type = Relink.self) -> [any ParsableCommand.Type] {
        [command] + command.configuration.subcommands.flatMap { allCommands($0) }
    }

    /// ArgumentParser writes an option's default after its text, so a text that says it too says it twice.
    @Test func everyHelpStatesADefaultOnce() throws {
        let twice = try Regex(#"\(default: [^)]*\)\.?\s+\(default: "#)
        for command in Self.allCommands() {
            let help = Relink.helpMessage(for: command, columns: 200)
            let match = help.firstMatch(of: twice).map { String(help[$0.range]) }
            #expect(match == nil, "\(command._commandName): \(match ?? "")")
        }
        #expect(Self.allCommands().count > 20)
    }

    /// The repository's routes.json with its first project's `key` set to `value`, loaded as every command loads it
    /// (from a file of its own): the file's path and the refusal's message, nil when it loaded.
    static func loading(firstProject key: String, as value: Any, also others: [String: Any] = [:]) throws -> (file: String, refusal: String?) {
        let file = FileManager.default.temporaryDirectory.appending(path: "relink-config-\(UUID()).json").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        var root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: EndToEndTests.routes))) as? [String: Any])
        var projects = try #require(root["projects"] as? [[String: Any]])
        projects[0][key] = value
        projects[0].merge(others) { _, other in other }
        root["projects"] = projects
        try JSONSerialization.data(withJSONObject: root).write(to: URL(fileURLWithPath: file))
        do {
            _ = try ConfigurationFile.load(file)
            return (file, nil)
        } catch {
            return (file, error.message)
        }
    }

    /// A configuration error quotes the file's values on its own line: a line feed in one cannot print a line of its
    /// own (a forged "valid").
    @Test func aConfigurationErrorQuotesAValueOnOneLine() throws {
        let (file, refusal) = try Self.loading(firstProject: "domains", as: ["https://evil.example\n✓ routes.json: valid"])
        let message = try #require(refusal)
        let lines = message.split(separator: "\n")
        #expect(lines.first == "invalid configuration:")
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix(file + ": ") }, "\(message)")
        #expect(message.contains("\\u{A}✓ routes.json: valid"), "\(message)")
    }

    /// routes.json's rules are held to the rules' keys as the API holds a body: a misspelt condition would be dropped
    /// and the rule would match every click.
    @Test func aMisspeltRuleKeyInTheConfigurationIsRefused() throws {
        let rules = ["rules": [["when": ["Countries": ["ES"]], "then": ["ofl": "https://pictlink.com/es"]]]]
        let (file, refusal) = try Self.loading(firstProject: "rules", as: rules)
        #expect(refusal?.hasSuffix("\(file): projects[0].rules.rules[0].when.Countries: unknown key (docs/rules.md lists a rule's keys)") == true)
        #expect(ConfigurationFile.unknownRuleFields(try Data(contentsOf: URL(fileURLWithPath: EndToEndTests.routes))).isEmpty)
        // Beside another problem, both are named: one run of `config check` lists all it can.
        let (other, both) = try Self.loading(firstProject: "rules", as: rules, also: ["allowlist": ["not anchored"]])
        let lines = try #require(both).split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("\(other): projects[0].allowlist[0]") }, "\(lines)")
        #expect(lines.last == "\(other): projects[0].rules.rules[0].when.Countries: unknown key (docs/rules.md lists a rule's keys)")
        // Every misspelt key at once, not one a run.
        let twice = ["rules": [["when": ["Countries": ["ES"], "osversion": "17"], "then": ["ofl": "https://pictlink.com/es"]]]]
        let (third, all) = try Self.loading(firstProject: "rules", as: twice)
        #expect(all?.contains("\(third): projects[0].rules.rules[0].when.Countries: unknown key") == true, "\(all ?? "")")
        #expect(all?.contains("\(third): projects[0].rules.rules[0].when.osversion: unknown key") == true, "\(all ?? "")")
        // Names cut by Unicode scalar (a key of combining marks is not a screenful a line), and a line past 20 keys.
        var many: [String: Any] = [:]
        for index in 0..<25 { many["k\(index)" + String(repeating: "\u{301}", count: 5_000)] = 1 }
        let (fourth, crowded) = try Self.loading(firstProject: "rules", as: ["rules": [["when": many, "then": ["ofl": "https://pictlink.com/es"]]]])
        let crowdedLines = try #require(crowded).split(separator: "\n")
        #expect(crowdedLines.count == 22 && crowdedLines.allSatisfy { $0.utf8.count < 1_000 }, "\(crowdedLines.count) lines")
        #expect(crowdedLines.last == "\(fourth): projects[0].rules: more unknown keys than these")
    }

    @Test func buildTakesAFlagPerParameter() throws {
        let command = try #require(try Relink.parseAsRoot(["build"] + Self.sample) as? BuildCommand)
        #expect(command.link.parameters.count == 5)
        #expect(command.link.parameters.apn == "jp.furyu.pictlink.android")
        let every = try BuildCommand.parse(
            ["--domain", "https://a.com", "--utm-source", "s", "--d", "1", "--efr", "1", "--ipbi", "x.y", "--pt", "4"])
        #expect(every.link.parameters.utmSource == "s")
        #expect(every.link.parameters.isDebug)
        #expect(every.link.parameters.count == 5)
    }

    @Test func exitCodes() {
        #expect(Self.exitCode(["build"] + Self.sample) == 0)
        #expect(Self.exitCode(["build", "--domain", "https://go.pictlink.com", "--apn", "x.y"]) == 1)
        #expect(Self.exitCode(["build", "--domain", "go.pictlink.com", "--link", "https://a.com"]) == 2)
        #expect(Self.exitCode(["build", "--link", "https://a.com"]) == 2)
        #expect(Self.exitCode(["parse", "https://go.pictlink.com/?link=https://pictlink.com/myPage"]) == 0)
        #expect(Self.exitCode(["parse", "https://go.pictlink.com/?link=https://pictlink.com/a&isi=abc"]) == 0)
        #expect(Self.exitCode(["parse", "https://go.pictlink.com/?link=javascript:alert(1)"]) == 1)
        #expect(Self.exitCode(["parse", "https://go.pictlink.com/?apn=x.y"]) == 1)
        #expect(Self.exitCode(["parse", "--json", "nonsense"]) == 1)
        #expect(Self.exitCode(["parse"]) == 2)
        #expect(Self.exitCode(["parse", "--bogus", "x"]) == 2)
        #expect(Self.exitCode(["frobnicate"]) == 2)
    }

    @Test func configCheck() throws {
        let routes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json").path
        #expect(Self.exitCode(["config", "check", routes]) == 0)
        let broken = FileManager.default.temporaryDirectory.appending(path: "relink-broken-\(UUID()).json")
        try Data(#"{"projects": [{"id": "p", "domains": ["x"]}]}"#.utf8).write(to: broken)
        defer { try? FileManager.default.removeItem(at: broken) }
        #expect(Self.exitCode(["config", "check", broken.path]) == 1)
        #expect(Self.exitCode(["config", "check", "/nonexistent/routes.json"]) == 1)
    }

    /// The README's `config check broken.json` example, run on the file it shows: it prints what the README says.
    @Test func theReadmesBrokenConfigurationExampleIsWhatTheCommandPrints() async throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL
        let readme = try String(contentsOf: root.appending(path: "README.md"), encoding: .utf8).components(separatedBy: "\n")
        let cat = try #require(readme.firstIndex(of: "$ cat broken.json"))
        let command = try #require(readme[cat...].firstIndex(of: "$ swift run relink config check broken.json; echo \"exit $?\""))
        let end = try #require(readme[command...].firstIndex(of: "```"))
        let file = readme[(cat + 1)..<command].joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
        let printed = Array(readme[(command + 1)..<end])

        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-readme-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let broken = folder.appending(path: "broken.json").path
        try Data(file.utf8).write(to: URL(fileURLWithPath: broken))
        let result = await FirebaseMigrationTests.run(["config", "check", broken])
        let error = try #require(result.error)
        // As `relink` prints it: the output, then the error after "relink: ", then the shell's echo of the exit code.
        let lines = result.output + "relink: \(error.message)".components(separatedBy: "\n") + ["exit \(error.exitCode)"]
        #expect(lines.map { $0.replacingOccurrences(of: broken, with: "broken.json") } == printed)
        #expect(printed.count > 3)
    }

    @Test func parseWithAConfigurationChecksTheProject() throws {
        let routes = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json").path
        let url = "https://go.pictlink.com/?link=https://pictlink.com/a&ibi=jp.furyu.pictlink.ios&isi=999"
        #expect(Self.exitCode(["parse", "--config", routes, url]) == 0)
        #expect(Self.exitCode(["parse", "--config", routes, "https://unknown.example/?link=https://a.com/"]) == 1)
    }
}

@Suite("Committed well-known files")
struct WellKnownTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL

    /// `well-known/` holds exactly what routes.json generates: run `swift run relink well-known` after editing it.
    @Test func wellKnownFolderMatchesRoutesJSON() throws {
        let configuration = try ConfigurationFile.load(Self.root.appending(path: "routes.json").path)
        let differences = WellKnownCommand.differences(
            expected: WellKnownCommand.expectedFiles(configuration),
            existing: WellKnownCommand.existingFiles(in: Self.root.appending(path: "well-known")))
        #expect(differences.isEmpty, "well-known/ is out of date; run `swift run relink well-known`: \(differences)")
    }

    @Test func checkAndWrite() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-well-known-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let routes = Self.root.appending(path: "routes.json").path
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path, "--check"]) == 1)
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path]) == 0)
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path, "--check"]) == 0)
        // A host no longer configured: its association files go, with its folder.
        let stale = folder.appending(path: "old.example.com/.well-known")
        try FileManager.default.createDirectory(at: stale, withIntermediateDirectories: true)
        try Data("stale".utf8).write(to: stale.appending(path: "assetlinks.json"))
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path, "--check"]) == 1)
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path]) == 0)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "old.example.com").path))
        // Anything else in the folder (a static site's pages, a database named by a slip of `--out .`) is not the
        // command's: neither checked nor removed.
        let others = ["index.html", "relink.sqlite", "css/site.css", "go.pictlink.com/.well-known/security.txt"]
        for path in others {
            let url = folder.appending(path: path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("keep".utf8).write(to: url)
        }
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path, "--check"]) == 0)
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path]) == 0)
        for path in others { #expect(FileManager.default.fileExists(atPath: folder.appending(path: path).path), "\(path)") }

        // Links never lead it outside the folder: a link at a file's name is replaced, a linked host folder is not
        // taken for one of its own (nor emptied), and the site's own .well-known is not a host.
        let outside = folder.deletingLastPathComponent().appending(path: "relink-outside-\(UUID())")
        try FileManager.default.createDirectory(at: outside.appending(path: ".well-known"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        try Data("precious".utf8).write(to: outside.appending(path: "victim"))
        try Data("[]".utf8).write(to: outside.appending(path: ".well-known/assetlinks.json"))
        let file = folder.appending(path: "go.pictlink.com/apple-app-site-association")
        try FileManager.default.removeItem(at: file)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: outside.appending(path: "victim"))
        try FileManager.default.createSymbolicLink(at: folder.appending(path: "old.example.com"), withDestinationURL: outside)
        try FileManager.default.createDirectory(at: folder.appending(path: ".well-known"), withIntermediateDirectories: true)
        try Data("{}".utf8).write(to: folder.appending(path: ".well-known/apple-app-site-association"))
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path]) == 0)
        #expect(try String(contentsOf: outside.appending(path: "victim"), encoding: .utf8) == "precious")
        #expect(!WellKnownCommand.isLink(file))
        #expect(FileManager.default.fileExists(atPath: outside.appending(path: ".well-known/assetlinks.json").path))
        #expect(FileManager.default.fileExists(atPath: folder.appending(path: ".well-known/apple-app-site-association").path))
        #expect(CommandTests.exitCode(["well-known", "--config", routes, "--out", folder.path, "--check"]) == 0)
    }
}
