import Foundation
import HummingbirdTesting
import Testing

@testable import relink

/// `relink mint --rules` and `relink links rules`: rules files from the CLI, through a live server.
@Suite("Rules from the CLI")
struct RulesCommandTests {
    typealias E = EndToEndTests

    @Test func mintsShowsReplacesAndClearsRules() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-rules-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let key = try #require(try await E.run(["keys", "create", "--project", "pictlink", "--config", E.routes, "--db", database]).first)
        let rules = folder.appending(path: "rules.json").path
        try #"{"rules": [{"name": "Spain", "when": {"countries": ["ES"]}, "then": {"ofl": "https://pictlink.com/es"}}]}"#
            .write(toFile: rules, atomically: true, encoding: .utf8)
        let variants = folder.appending(path: "variants.json").path
        try #"{"variants": [{"name": "control", "weight": 1}, {"name": "video", "weight": 1, "destination": {"ofl": "https://pictlink.com/video"}}]}"#
            .write(toFile: variants, atomically: true, encoding: .utf8)
        let broken = folder.appending(path: "broken.json").path
        try #"{"rules": [{"when": {"countries": ["ES"]}}]}"#.write(toFile: broken, atomically: true, encoding: .utf8)

        try await E.application(database: database).test(.live) { client in
            let server = ["--server", "http://127.0.0.1:\(try #require(client.port))", "--key", key]
            let mint = ["mint", "--domain", "https://go.pictlink.com", "--link", "https://pictlink.com/rules"]
            let shortLink = try #require(try await E.run(mint + ["--rules", rules] + server).first)
            let shown = try await E.run(["links", "rules", shortLink] + server).joined()
            #expect(shown.contains(#""countries" : ["#) && shown.contains("\"ES\""), "\(shown)")

            let replaced = try await E.run(["links", "rules", shortLink, "--set", variants] + server).joined()
            #expect(replaced.contains("\"video\"") && !replaced.contains("Spain"), "\(replaced)")
            let cleared = try await E.run(["links", "rules", shortLink, "--clear"] + server).joined()
            #expect(!cleared.contains("video"), "\(cleared)")

            let refused = await FirebaseMigrationTests.run(mint + ["--rules", broken] + server)
            #expect(refused.error?.message.contains("is not a rules file") == true, "\(String(describing: refused.error))")
            let missing = await FirebaseMigrationTests.run(mint + ["--rules", folder.appending(path: "nowhere.json").path] + server)
            #expect(missing.error?.exitCode == CLIError.usageExitCode)
        }
    }

    /// A misspelt field would be dropped by decoding, and the rule would match every click: refused, as the API
    /// refuses it. A file past 1 MB is refused without being read whole.
    @Test func aRulesFileWithAFieldRulesDoNotTakeIsRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-rules-file-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let misspelt = folder.appending(path: "misspelt.json").path
        try #"{"rules": [{"when": {"contries": ["ES"]}, "then": {"ofl": "https://pictlink.com/es"}}]}"#
            .write(toFile: misspelt, atomically: true, encoding: .utf8)
        func refusal(_ path: String) -> String? {
            do {
                _ = try LinksCommand.readRules(path)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(refusal(misspelt) == "'\(misspelt)' has a field rules do not take in rules[0].when: 'contries' (docs/rules.md)")
        let large = folder.appending(path: "large.json").path
        try Data(repeating: UInt8(ascii: " "), count: (1 << 20) + 1).write(to: URL(fileURLWithPath: large))
        #expect(refusal(large) == "'\(large)' is larger than 1 MB")
    }
}
