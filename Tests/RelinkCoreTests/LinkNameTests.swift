import Testing

@testable import RelinkCore

/// A link's name is one line of visible text: checked by scalar, emoji and joining scripts kept.
@Suite("Link names")
struct LinkNameTests {
    @Test(arguments: [
        // Line and paragraph separators, C0 and C1 controls.
        "a\u{2028}b", "a\u{2029}b", "a\nb", "a\u{0B}b", "a\u{85}b",
        // Bidirectional overrides, embeddings, isolates and marks.
        "abc\u{202E}gpj.exe", "a\u{202A}b", "a\u{202B}b", "a\u{202C}b", "a\u{202D}b",
        "a\u{2066}b", "a\u{2067}b", "a\u{2068}b", "a\u{2069}b", "a\u{200E}b", "a\u{200F}b", "\u{0627}\u{061C}\u{0628}",
        // Zero-width characters, the byte-order mark, the soft hyphen, invisible operators.
        "pay\u{200B}pal", "\u{FEFF}sale", "sale\u{AD}", "a\u{2060}b", "a\u{2062}b", "a\u{180E}b", "a\u{206A}b",
        // The joiners where no writing needs them: between ASCII letters, alone, beside a non-emoji.
        "pay\u{200C}pal", "pay\u{200D}pal", "\u{200D}", "\u{1F469}\u{200D}", "\u{200D}\u{1F4BB}", "1\u{200D}2", "\u{1F469}\u{200D}x",
        // A joiner between emoji is kept only there: the zero-width space next to it is not.
        "\u{1F469}\u{200D}\u{1F4BB}\u{200B}",
    ])
    func refusesInvisibleAndLineBreakingScalars(name: String) {
        let problem = LinkName.problem(name)
        #expect(problem != nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        #expect(problem?.contains("control characters") == true)
    }

    @Test(arguments: [
        "Spring sale", "Été 2026 — soldes", "日本語のリンク", "مرحبا بالعالم", "",
        // Emoji ZWJ sequences: technologist, with a skin tone, rainbow and transgender flags, heart on fire, family.
        "\u{1F469}\u{200D}\u{1F4BB} launch", "\u{1F469}\u{1F3FD}\u{200D}\u{1F4BB}", "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",
        "\u{1F3F3}\u{FE0F}\u{200D}\u{26A7}\u{FE0F}", "\u{2764}\u{FE0F}\u{200D}\u{1F525}",
        "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466}",
        // A subdivision flag: tag characters are format characters that draw (with the flag).
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        // Persian needs ZWNJ between letters ("I want"); Devanagari uses both joiners after a virama.
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", "\u{0915}\u{094D}\u{200D}\u{0937}",
        "\u{0915}\u{094D}\u{200C}\u{0937}",
        // The Arabic number sign is a format character that draws.
        "\u{0600}\u{0661}\u{0662}",
    ])
    func keepsVisibleTextAndTheJoinersWritingNeeds(name: String) {
        #expect(LinkName.problem(name) == nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    @Test func theProblemNamesTheScalar() {
        #expect(LinkName.problem("a\u{202E}b")?.hasSuffix("it holds U+202E.") == true)
        #expect(LinkName.problem("a\u{AD}b")?.hasSuffix("it holds U+00AD.") == true)
    }

    @Test func oneLineKeepsWhatProblemAccepts() {
        #expect(LinkName.oneLine("a\u{2028}b\nc\u{2029}d") == "a b c d")
        #expect(LinkName.oneLine("pay\u{200B}pal\u{202E}\u{FEFF}") == "paypal")
        let emoji = "\u{1F469}\u{200D}\u{1F4BB} launch"
        #expect(LinkName.oneLine(emoji) == emoji)
        for name in ["a\u{2028}\u{200D}b", "\u{200D}\u{200D}", "x\u{202E}\u{1F469}\u{200D}\u{1F4BB}\t\u{200C}"] {
            #expect(LinkName.problem(LinkName.oneLine(name)) == nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
        }
    }
}
