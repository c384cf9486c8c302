import Foundation
import RelinkCore

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

    /// `text` as long links store it, a LIKE pattern as `likePattern` makes: their parameters' values are
    /// percent-encoded byte by byte (every byte but an ASCII letter or digit, `LinkQuery.encode`), so a destination
    /// as people write it (`pictlink.jp/campaign`) is found there only in this form. Nil when it is the same text.
    public static func storedLongLinkPattern(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return nil }
        let cut = String(String.UnicodeScalarView(trimmed.unicodeScalars.prefix(maximumLength)))
        let encoded = PercentEncoding.encodeQueryValue(cut)
        guard encoded != cut else { return nil }
        // The encoded text holds only letters, digits and `%`, which LIKE must take as itself.
        return "%" + encoded.replacingOccurrences(of: "%", with: "\\%") + "%"
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
