/// A short link's name, as the console lists it and search finds it: the one rule that minting through the API and
/// the Firebase import both hold names to, so an imported name is never one the API would refuse.
///
/// A name is one line of visible text. Refused, by Unicode scalar: control characters (C0, C1), the line and
/// paragraph separators (U+2028, U+2029), the interlinear annotation characters (U+FFF9–U+FFFB), and every scalar
/// Unicode marks as default ignorable (drawn as nothing where a font lacks it): bidirectional controls, zero-width
/// characters, the byte-order mark, the soft hyphen, invisible operators, Hangul fillers (U+115F, U+1160, U+3164,
/// U+FFA0), tag characters (U+E0000–U+E0FFF, which can hide a whole ASCII text) and the unassigned scalars kept for
/// more of them. Kept where writing needs them: U+200D between emoji (👩‍💻 is one emoji) or after a virama (Indic
/// conjuncts); U+200C after a virama or between two letters outside ASCII (Persian and other joining scripts); one
/// variation selector right after a visible character (❤️, an ideograph's variant, a Mongolian letter's form); and
/// the tags of a subdivision flag (🏴 U+1F3F4, two to seven tag letters or digits, then the cancel tag U+E007F).
/// Elsewhere, between ASCII letters for the joiners or in a row for variation selectors, they only hide a difference or
/// carry hidden data, and are refused.
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
        let properties = scalar.properties
        switch properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return .lineBreakOrControl
        default: break
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
        case 0xE0020...0xE007F:
            return isInFlagTagSequence(scalars, at: index) ? .kept : .invisible
        case 0xFFF9...0xFFFB:
            // Interlinear annotation marks: not ignorable, yet drawn as nothing by most text systems.
            return .invisible
        default:
            if properties.isVariationSelector {
                return index > 0 && isVariationBase(scalars, at: index - 1) ? .kept : .invisible
            }
            // Other format characters draw something (U+0600, the Arabic number sign).
            return properties.isDefaultIgnorableCodePoint ? .invisible : .kept
        }
    }

    /// Whether the scalar at `index` may carry a variation selector: one that is drawn, so not a space, nor
    /// ignorable (another selector, a joiner), nor refused.
    private static func isVariationBase(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        let properties = scalars[index].properties
        guard !properties.isDefaultIgnorableCodePoint, !properties.isWhitespace else { return false }
        return kind(of: scalars, at: index) == .kept
    }

    /// Whether the tag character at `index` belongs to an emoji tag sequence that draws a subdivision flag: U+1F3F4,
    /// then the subdivision's code in tag letters and digits (`gbsct`: two to seven), then the cancel tag U+E007F.
    /// Any other run of tags draws nothing.
    private static func isInFlagTagSequence(_ scalars: [Unicode.Scalar], at index: Int) -> Bool {
        func isCodeTag(_ scalar: Unicode.Scalar) -> Bool {
            (0xE0030...0xE0039).contains(scalar.value) || (0xE0061...0xE007A).contains(scalar.value)
        }
        let longest = 7
        // Walks at most one tag past the longest code each way, so a long run of tags costs no more per scalar.
        var start = scalars[index].value == 0xE007F ? index : index + 1
        while start > 0, index - start < longest, isCodeTag(scalars[start - 1]) { start -= 1 }
        var end = max(start, index)
        while end < scalars.count, end - start <= longest, isCodeTag(scalars[end]) { end += 1 }
        guard start > 0, scalars[start - 1].value == 0x1F3F4, end < scalars.count, scalars[end].value == 0xE007F else { return false }
        return (2...longest).contains(end - start)
    }

    /// An emoji, not the digits, `#` and `*` that Unicode also marks as emoji (for keycaps).
    private static func isEmoji(_ scalar: Unicode.Scalar) -> Bool { !scalar.isASCII && scalar.properties.isEmoji }

    /// What may stand between an emoji and its joiner: the emoji presentation selector and skin tones.
    private static func isEmojiDecoration(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value == 0xFE0F || scalar.properties.isEmojiModifier
    }

    private static func isVirama(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.canonicalCombiningClass == .virama }

    /// A letter or mark outside ASCII, not one that is ignorable (a variation selector, a Hangul filler): those may be
    /// left out, and a joiner must not outlive what it joins.
    private static func isJoiningLetter(_ scalar: Unicode.Scalar) -> Bool {
        guard !scalar.isASCII, !scalar.properties.isDefaultIgnorableCodePoint else { return false }
        switch scalar.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .nonspacingMark, .spacingMark: return true
        default: return false
        }
    }
}
