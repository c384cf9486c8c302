/// A short link's name, as the console lists it and search finds it: the one rule that minting through the API and
/// the Firebase import both hold names to, so an imported name is never one the API would refuse.
///
/// A name is one line of visible text. Refused, by Unicode scalar: control characters (C0, C1), the line and
/// paragraph separators (U+2028, U+2029), and the invisible format characters that make a name read otherwise
/// than it is stored: bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E, U+2066–U+2069), zero-width
/// characters (U+200B, U+2060, U+FEFF, U+180E), the soft hyphen (U+00AD) and invisible operators (U+2061–U+2064,
/// U+206A–U+206F). The two joiners are kept where writing needs them: U+200D between emoji (👩‍💻 is one emoji) or
/// after a virama (Indic conjuncts); U+200C after a virama or between two letters outside ASCII (Persian and other
/// joining scripts). Elsewhere, between ASCII letters for one, they only hide a difference and are refused.
public enum LinkName {
    /// The longest name, in Unicode scalars (what JSON Schema's `maxLength` counts).
    public static let maximumLength = 200

    /// What is wrong with `name` as a link's name, or nil when it may be stored.
    public static func problem(_ name: String) -> String? {
        let length = name.unicodeScalars.count
        guard length <= maximumLength else { return "name must be at most \(maximumLength) characters; got \(length)." }
        let scalars = Array(name.unicodeScalars)
        guard let index = scalars.indices.first(where: { kind(of: scalars, at: $0) != .kept }) else { return nil }
        let code = String(scalars[index].value, radix: 16, uppercase: true)
        return "name must not hold line breaks or other control characters, nor invisible formatting characters; "
            + "it holds U+\(String(repeating: "0", count: max(0, 4 - code.count)))\(code)."
    }

    /// `name` as one line that `problem` accepts but for its length: each control character and line or paragraph
    /// separator (a line break in a quoted CSV field, a tab) as a space, invisible formatting characters left out.
    /// How the importer keeps a name that minting would refuse only for them, rather than the link.
    public static func oneLine(_ name: String) -> String {
        let scalars = Array(name.unicodeScalars)
        var kept = String.UnicodeScalarView()
        for index in scalars.indices {
            switch kind(of: scalars, at: index) {
            case .kept: kept.append(scalars[index])
            case .lineBreakOrControl: kept.append(" ")
            case .invisible: break
            }
        }
        return String(kept)
    }

    private enum Kind { case kept, lineBreakOrControl, invisible }

    private static func kind(of scalars: [Unicode.Scalar], at index: Int) -> Kind {
        let scalar = scalars[index]
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return .lineBreakOrControl
        case .format: break
        default: return .kept
        }
        switch scalar.value {
        case 0x200D:
            let before = index > 0 ? scalars[..<index].last(where: { !isEmojiDecoration($0) }) : nil
            let after = index + 1 < scalars.count ? scalars[index + 1] : nil
            if let before, isVirama(before) { return .kept }
            return before.map(isEmoji) == true && after.map(isEmoji) == true ? .kept : .invisible
        case 0x200C:
            let before = index > 0 ? scalars[index - 1] : nil
            let after = index + 1 < scalars.count ? scalars[index + 1] : nil
            if let before, isVirama(before) { return .kept }
            return before.map(isJoiningLetter) == true && after.map(isJoiningLetter) == true ? .kept : .invisible
        case 0x00AD, 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, 0x202A...0x202E, 0x2060...0x2064, 0x2066...0x206F, 0xFEFF:
            return .invisible
        default:
            // Other format characters draw something (U+0600, the Arabic number sign) or belong to a sequence that
            // does (the tags of 🏴󠁧󠁢󠁳󠁣󠁴󠁿).
            return .kept
        }
    }

    /// An emoji, not the digits, `#` and `*` that Unicode also marks as emoji (for keycaps).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool { !scalar.isASCII && scalar.properties.isEmoji }

    /// What may stand between an emoji and its joiner: the emoji presentation selector and skin tones.
    private static func isEmojiDecoration(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0F || scalar.properties.isEmojiModifier
    }

    private static func isVirama(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.canonicalCombiningClass == .virama }

    private static func isJoiningLetter(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }
}
