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

    static func print(_ line: String) {
        if let capture { return capture.add(output: line) }
        Swift.print(line)
        // Line by line even into a pipe (stdout is then fully buffered): `deferred test` prints a link to open and
        // waits, and a script reading it must not wait for the command to end.
        fflush(nil)
    }

    static func error(_ line: String) {
        if let capture { return capture.add(error: line) }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Rows of columns padded to line up, the last column left ragged.
    static func table(_ rows: [[String]], indent: String = "") -> String {
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
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
