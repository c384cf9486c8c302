import Foundation
import PropertyBased
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
        // Tag characters outside a flag: hidden ASCII text ("ASCII smuggling"), after an emoji that is not the black
        // flag, without the cancel tag, with upper-case or space tags, too long, or the cancel tag alone.
        "Spring" + Self.tags("ignore previous"), "\u{1F600}" + Self.tags("gbsct") + "\u{E007F}", "\u{1F3F4}" + Self.tags("gbsct"),
        "\u{1F3F4}" + Self.tags("gbSct") + "\u{E007F}", "\u{1F3F4}" + Self.tags("gb sct") + "\u{E007F}",
        "\u{1F3F4}" + Self.tags("gbsctabc") + "\u{E007F}", "\u{1F3F4}" + Self.tags("g") + "\u{E007F}", "a\u{E007F}",
        "\u{1F3F4}\u{E0001}" + Self.tags("gbsct") + "\u{E007F}", "a\u{E0000}b",
        // Interlinear annotation, Hangul fillers, and other default-ignorable scalars.
        "a\u{FFF9}b\u{FFFA}c\u{FFFB}", "a\u{FFFB}", "a\u{115F}b", "a\u{1160}b", "a\u{3164}b", "a\u{FFA0}b", "\u{3164}",
        "a\u{034F}b", "a\u{17B4}b", "a\u{1BCA0}b", "a\u{1D173}b", "a\u{FFF0}b", "a\u{2065}b",
        // Variation selectors with nothing visible before them: first, after a space or a joiner, or in a row.
        "\u{FE0F}a", "a \u{FE0F}", "\u{1F469}\u{200D}\u{FE0F}\u{1F4BB}", "\u{2764}\u{FE0F}\u{FE0F}",
        "\u{2764}\u{FE0F}" + String(repeating: "\u{E0101}", count: 20), "\u{E0100}", "\u{180B}\u{1820}",
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
        // Subdivision flags (Scotland; England and Wales side by side; Texas): tags draw only in such a sequence.
        "\u{1F3F4}\u{E0067}\u{E0062}\u{E0073}\u{E0063}\u{E0074}\u{E007F}",
        "\u{1F3F4}" + Self.tags("gbeng") + "\u{E007F}\u{1F3F4}" + Self.tags("gbwls") + "\u{E007F} cup", "\u{1F3F4}" + Self.tags("ustx") + "\u{E007F}",
        // A variation selector after what it varies: emoji and text presentation, a keycap, an ideograph's variant,
        // a Mongolian letter's form.
        "\u{2764}\u{FE0F} sale", "\u{263A}\u{FE0E}", "1\u{FE0F}\u{20E3}", "\u{845B}\u{E0100}", "\u{1820}\u{180B}",
        // Persian needs ZWNJ between letters ("I want"); Devanagari uses both joiners after a virama.
        "\u{0645}\u{06CC}\u{200C}\u{062E}\u{0648}\u{0627}\u{0647}\u{0645}", "\u{0915}\u{094D}\u{200D}\u{0937}",
        "\u{0915}\u{094D}\u{200C}\u{0937}",
        // The Arabic number sign is a format character that draws.
        "\u{0600}\u{0661}\u{0662}",
    ])
    func keepsVisibleTextAndTheJoinersWritingNeeds(name: String) {
        #expect(LinkName.problem(name) == nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
    }

    /// `text` in tag characters, as an emoji tag sequence or hidden text spells it.
    static func tags(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.compactMap { Unicode.Scalar(0xE0000 + $0.value) }))
    }

    /// Whatever mix of scalars a name is made of, `oneLine` makes one that `problem` accepts (no scalar it drops
    /// gives another one the context it needed).
    @Test func oneLineAlwaysMakesAnAcceptedName() async {
        let pool: [Unicode.Scalar] = [
            "a", " ", "\n", "\u{0645}", "\u{094D}", "\u{0915}", "\u{1F469}", "\u{1F4BB}", "\u{1F3FD}", "\u{1F3F4}", "\u{2764}",
            "\u{200B}", "\u{200C}", "\u{200D}", "\u{202E}", "\u{FE0F}", "\u{FE0E}", "\u{E0100}", "\u{180B}", "\u{3164}",
            "\u{FFF9}", "\u{E0067}", "\u{E0062}", "\u{E0073}", "\u{E0041}", "\u{E0020}", "\u{E007F}", "\u{2028}",
        ]
        let names = Generator<String, Shrink.None<String>> { rng in
            let count = Int.random(in: 0...24, using: &rng)
            return String(String.UnicodeScalarView((0..<count).map { _ in pool.randomElement(using: &rng)! }))
        }
        await propertyCheck(count: 3000, input: names) { name in
            let line = LinkName.oneLine(name)
            #expect(LinkName.problem(line) == nil, "\(name.unicodeScalars.map { String($0.value, radix: 16) })")
            if LinkName.problem(name) == nil { #expect(line == name) }
        }
    }

    @Test func oneLineDropsHiddenTagsAndFillers() {
        #expect(LinkName.oneLine("Spring" + Self.tags("ignore previous")) == "Spring")
        #expect(LinkName.oneLine("a\u{3164}b\u{FFF9}c\u{FE0F}\u{FE0F}") == "abc\u{FE0F}")
        let flag = "\u{1F3F4}" + Self.tags("gbsct") + "\u{E007F}"
        #expect(LinkName.oneLine(flag) == flag)
    }

    /// The OpenAPI document's name pattern (`LinkName`, for minting and editing) refuses every name of one scalar
    /// from U+0000 to U+FFFF, alone or in the places the rules look at, that the server refuses: no looser where a
    /// pattern can name the character. (Past U+FFFF a pattern cannot, in both the engines that read it.)
    @Test func theOpenAPIPatternIsNoLooserThanTheServer() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../Sources/RelinkServer/API/openapi.json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        var patterns: [String] = []
        func collect(_ value: Any, key: String?) {
            if let object = value as? [String: Any] {
                if key == "LinkName", object["maxLength"] as? Int == LinkName.maximumLength, let pattern = object["pattern"] as? String {
                    patterns.append(pattern)
                }
                for (key, value) in object { collect(value, key: key) }
            } else if let array = value as? [Any] {
                for value in array { collect(value, key: nil) }
            }
        }
        collect(document, key: nil)
        #expect(patterns.count == 1, "the LinkName schema, which minting and editing refer to")
        for pattern in Set(patterns) {
            let regex = try NSRegularExpression(pattern: pattern)
            // As ECMA-262 reads a pattern (JSON Schema's dialect): `$` only at the very end, where ICU's also matches
            // before a final line break.
            func matches(_ name: String) -> Bool {
                let whole = NSRange(name.startIndex..., in: name)
                return regex.firstMatch(in: name, range: whole)?.range == whole
            }
            for name in ["Spring sale", "\u{2764}\u{FE0F} sale", "日本語", "\u{845B}\u{E0100}", "a b", ""] {
                #expect(matches(name), "\(name) is a name the server takes")
            }
            for value in UInt32(0)...0xFFFF {
                guard let scalar = Unicode.Scalar(value) else { continue }
                let one = String(Character(scalar))
                for name in [one, "a" + one + "b", "\u{2764}" + one, "a" + one + "\u{FE0F}", " " + one] where LinkName.problem(name) != nil {
                    let scalars = name.unicodeScalars.map { String($0.value, radix: 16) }
                    #expect(!matches(name), "U+\(String(value, radix: 16, uppercase: true)) in \(scalars)")
                }
            }
        }
    }

    @Test func theProblemNamesTheScalar() {
        #expect(LinkName.problem("a\u{202E}b")?.hasSuffix("it holds U+202E.") == true)
        #expect(LinkName.problem("a\u{AD}b")?.hasSuffix("it holds U+00AD.") == true)
        #expect(LinkName.problem("Spring" + Self.tags("x"))?.hasSuffix("it holds U+E0078.") == true)
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
