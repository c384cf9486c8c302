/// Text from outside (link values, names, server messages, file contents) as the CLI shows it on a terminal: every
/// scalar a terminal would act on instead of showing, written as `\u{1B}`, so a value cannot move the cursor, change
/// colours, clear the screen, reorder the line (bidirectional overrides) or start a line of its own.
enum TerminalText {
    /// `text` with C0 and C1 controls (line breaks and tabs too), DEL, bidirectional marks, overrides and isolates,
    /// and the Unicode line and paragraph separators escaped by scalar.
    static func escaped(_ text: some StringProtocol) -> String {
        escape(text, keepingLineFeeds: false)
    }

    /// `text` escaped as `escaped` does, except its line feeds, which the CLI's own multi-line output is made of.
    static func escapedKeepingLineFeeds(_ text: some StringProtocol) -> String {
        escape(text, keepingLineFeeds: true)
    }

    /// Whether a terminal would act on `scalar` rather than show it.
    static func isUnsafe(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Arabic letter mark, left-to-right and right-to-left marks, embeddings and overrides, isolates.
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        // Line and paragraph separators: some terminals and pagers break the line there.
        case 0x2028, 0x2029: true
        default: false
        }
    }

    private static func escape(_ text: some StringProtocol, keepingLineFeeds: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && !(keepingLineFeeds && $0 == "\n") }) else { return String(text) }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if isUnsafe(scalar), !(keepingLineFeeds && scalar == "\n") {
                result.append(contentsOf: "\\u{\(String(scalar.value, radix: 16, uppercase: true))}".unicodeScalars)
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }
}
