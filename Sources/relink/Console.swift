import Foundation

/// Output for the CLI: results on stdout, diagnostics on stderr.
enum Console {
    /// Collects what commands print, for tests that run commands in-process.
    final class Capture: @unchecked Sendable {
        private let lock = NSLock()
        private var _output: [String] = []
        private var _errors: [String] = []

        var output: [String] { lock.withLock { _output } }
        var errors: [String] { lock.withLock { _errors } }

        func add(output line: String) { lock.withLock { _output.append(line) } }
        func add(error line: String) { lock.withLock { _errors.append(line) } }
    }

    @TaskLocal static var capture: Capture?

    /// Prints `line` (several lines when it holds line feeds) with whatever else a terminal would act on escaped
    /// (`TerminalText`): what commands print holds values from outside.
    static func print(_ line: String) {
        let line = TerminalText.escapedKeepingLineFeeds(line)
        if let capture { return capture.add(output: line) }
        Swift.print(line)
        // Line by line even into a pipe (stdout is then fully buffered): `deferred test` prints a link to open and
        // waits, and a script reading it must not wait for the command to end.
        fflush(nil)
    }

    /// Prints `line` on stderr, escaped as `print` does.
    static func error(_ line: String) {
        let line = TerminalText.escapedKeepingLineFeeds(line)
        if let capture { return capture.add(error: line) }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Rows of columns padded to line up, the last column left ragged; each cell escaped whole (`TerminalText`), line
    /// feeds too, so that it stays on its row.
    static func table(_ rows: [[String]], indent: String = "") -> String {
        let rows = rows.map { $0.map(TerminalText.escaped) }
        guard let columns = rows.map(\.count).max(), columns > 0 else { return "" }
        var widths = Array(repeating: 0, count: columns)
        for row in rows {
            for (index, cell) in row.enumerated() where index < columns - 1 {
                widths[index] = max(widths[index], cell.count)
            }
        }
        return rows.map { row in
            indent
                + row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    /// JSON for `--json` output: sorted keys, pretty, no escaped slashes.
    /// JSON for `--json` output: sorted keys, pretty, no escaped slashes. What a terminal would act on is written as
    /// JSON escapes (`\u001b`), which the encoder does for C0 controls only.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let text = String(decoding: try encoder.encode(value), as: UTF8.self)
        guard text.unicodeScalars.contains(where: TerminalText.isUnsafe) else { return text }
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            // Outside strings JSON has only ASCII punctuation, spaces and line feeds, which pass unchanged.
            if TerminalText.isUnsafe(scalar), scalar.value > 0x1F {
                let hex = String(scalar.value, radix: 16)
                escaped.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
            } else {
                escaped.append(scalar)
            }
        }
        return String(escaped)
    }
}
