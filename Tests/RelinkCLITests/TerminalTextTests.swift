import ArgumentParser
import Foundation
import RelinkClient
import Testing

@testable import relink

/// Values from outside (a link someone sends, a key's name, a server's message) never reach the terminal as the
/// controls they hold: escape sequences, line breaks and bidirectional overrides are shown escaped by scalar.
@Suite("Terminal text")
struct TerminalTextTests {
    /// Runs a command in-process: its stdout and stderr lines, and the error it ended with.
    static func run(_ arguments: [String]) async -> (output: [String], errors: [String], error: (any Error)?) {
        await InProcessCommand.run(arguments)
    }

    static func hasControls(_ lines: [String]) -> Bool {
        lines.contains { $0.unicodeScalars.contains { TerminalText.isUnsafe($0) && $0 != "\n" } }
    }

    @Test func escapesControlsByScalar() {
        #expect(TerminalText.escaped("a\u{1B}[31mb\nc\td") == "a\\u{1B}[31mb\\u{A}c\\u{9}d")
        #expect(
            TerminalText.escaped("x\u{7F}\u{85}\u{9B}\u{202E}\u{2066}\u{200F}\u{2028}")
                == "x\\u{7F}\\u{85}\\u{9B}\\u{202E}\\u{2066}\\u{200F}\\u{2028}")
        #expect(TerminalText.escaped("Campaña ☀️ 👩‍👩‍👧 https://a.com/?q=1") == "Campaña ☀️ 👩‍👩‍👧 https://a.com/?q=1")
        #expect(TerminalText.escapedKeepingLineFeeds("one\r\ntwo\u{1B}") == "one\\u{D}\ntwo\\u{1B}")
    }

    @Test func parseShowsALinksControlsEscaped() async throws {
        let link = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com&st=%1b%5b2J%1b%5b31mPWNED%0Avalid&sd=%E2%80%AEevil"
        let table = await Self.run(["parse", link])
        #expect(!Self.hasControls(table.output), "\(table.output)")
        let text = table.output.joined(separator: "\n")
        #expect(text.contains("st      \\u{1B}[2J\\u{1B}[31mPWNED\\u{A}valid"), "\(text)")
        #expect(text.contains("sd      \\u{202E}evil"))

        let json = await Self.run(["parse", "--json", link])
        #expect(!Self.hasControls(json.output), "\(json.output)")
        let decoded = try JSONSerialization.jsonObject(with: Data(json.output.joined(separator: "\n").utf8)) as? [String: Any]
        let parameters = decoded?["parameters"] as? [String: Any]
        #expect(parameters?["st"] as? String == "\u{1B}[2J\u{1B}[31mPWNED\nvalid", "JSON keeps the value, as escapes")
        #expect(parameters?["sd"] as? String == "\u{202E}evil")
    }

    @Test func buildEchoesALinkEscaped() async {
        let built = await Self.run(["build", "--domain", "https://go.pictlink.com", "--link", "javascript:\u{1B}[31mRED\nok"])
        #expect(built.error != nil)
        #expect(!built.errors.isEmpty)
        #expect(!Self.hasControls(built.errors), "\(built.errors)")
        #expect(built.errors.contains { $0.contains("\\u{1B}[31mRED\\u{A}ok") }, "\(built.errors)")
    }

    @Test func keysListShowsANameEscapedOnItsRow() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-terminal-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let created = await Self.run(
            ["keys", "create", "--project", "pictlink", "--name", "a\u{1B}[31mb\nc", "--config", EndToEndTests.routes, "--db", database])
        #expect(created.error == nil, "\(String(describing: created.error))")
        let listed = await Self.run(["keys", "list", "--db", database])
        let lines = listed.output.joined(separator: "\n").components(separatedBy: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(!Self.hasControls(listed.output))
        #expect(lines.last?.contains("a\\u{1B}[31mb\\u{A}c") == true, "\(lines)")
    }

    @Test func aServersMessageIsOneEscapedLine() {
        let error = RelinkClientError(status: 400, apiStatus: "INVALID_ARGUMENT", message: "refused\n\u{1B}]0;title\u{7}").cliError
        #expect(error.message == "refused\\u{A}\\u{1B}]0;title\\u{7} (HTTP 400 INVALID_ARGUMENT)")
    }
}
