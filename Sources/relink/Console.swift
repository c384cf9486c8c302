import Foundation

/// Output for the CLI: results on stdout, diagnostics on stderr.
enum Console {
    static func print(_ line: String) {
        Swift.print(line)
    }

    static func error(_ line: String) {
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
