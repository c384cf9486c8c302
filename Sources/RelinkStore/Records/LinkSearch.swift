import Foundation

/// A links search as both stores run it: the text to find anywhere in a code, long link or name.
public enum LinkSearch {
    /// The longest search text read; longer text is cut here (no link is found by more).
    public static let maximumLength = 200

    /// `text` as a LIKE pattern with `\` as the escape character, so `%`, `_` and `\` match themselves; nil for
    /// blank text (no filter).
    public static func likePattern(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        var pattern = "%"
        for scalar in trimmed.unicodeScalars.prefix(maximumLength) {
            if scalar == "%" || scalar == "_" || scalar == "\\" { pattern.unicodeScalars.append("\\") }
            // A NUL would end SQLite's pattern early (matching everything); control characters are never searched for.
            pattern.unicodeScalars.append(scalar.value < 0x20 || scalar.value == 0x7F ? "\u{FFFD}" : scalar)
        }
        return pattern + "%"
    }

    /// `text` with A–Z lowered and every other scalar kept: how the PostgreSQL store ignores case as SQLite's LIKE does.
    public static func asciiLowercased(_ text: String) -> String {
        var lowered = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            lowered.append(("A"..."Z").contains(scalar) ? Unicode.Scalar(scalar.value + 32)! : scalar)
        }
        return String(lowered)
    }
}
