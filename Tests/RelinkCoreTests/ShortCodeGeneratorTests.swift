import Testing

@testable import RelinkCore

@Suite("Short code generator")
struct ShortCodeGeneratorTests {
    /// A generator that repeats one value, so the random part is fixed and the time part is what differs.
    struct Repeating: RandomNumberGenerator {
        var value: UInt64
        mutating func next() -> UInt64 { value }
    }

    @Test func timeOrderedIdsSortByTheirSecondInByteOrder() {
        var low = Repeating(value: .max)  // the largest random part
        var high = Repeating(value: 1)  // the smallest
        // Across every carry of the six digits, and a random part that cannot reverse the order of two seconds.
        let seconds = [0, 1, 61, 62, 3_843, 3_844, 238_327, 238_328, 1_700_000_000, 1_800_000_000, 56_800_235_583]
        for (earlier, later) in zip(seconds, seconds.dropFirst()) {
            let a = ShortCodeGenerator.timeOrdered(secondsSince1970: earlier, using: &low)
            let b = ShortCodeGenerator.timeOrdered(secondsSince1970: later, using: &high)
            #expect(Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)), "\(a) (\(earlier)) before \(b) (\(later))")
        }
        #expect(ShortCodeGenerator.timeOrdered(secondsSince1970: -5, using: &high).hasPrefix("000000"))
    }

    @Test func timeOrderedIdsAreShortCodesWithTheirRandomPartUniform() {
        var system = SystemRandomNumberGenerator()
        var ids = Set<String>()
        var counts = [Character: Int]()
        for _ in 0..<2_000 {
            let id = ShortCodeGenerator.timeOrdered(secondsSince1970: 1_800_000_000, using: &system)
            #expect(id.utf8.count == ShortCodeGenerator.timeOrderedLength)
            #expect(ShortCode(Substring(id)) != nil)
            #expect(id.utf8.allSatisfy { ShortCodeGenerator.alphabet.contains($0) })
            ids.insert(id)
            for character in id.dropFirst(6) { counts[character, default: 0] += 1 }
        }
        // One second's ids share their first six characters and nothing else.
        #expect(ids.count == 2_000)
        #expect(Set(ids.map { $0.prefix(6) }).count == 1)
        // 32,000 random characters over 62: each about 516 times; a biased or stuck digit falls far outside.
        #expect(counts.count == 62)
        #expect(counts.values.allSatisfy { (380...660).contains($0) })
    }
}
