import Testing

@testable import RelinkServer

@Suite("Random numbers for click ids")
struct CryptoRandomNumberGeneratorTests {
    /// Each draw is new: the four words of one batch and those of the next are never handed out twice.
    @Test func drawsAreNeverRepeated() {
        var generator = CryptoRandomNumberGenerator()
        let draws = (0..<4_096).map { _ in generator.next() }
        #expect(Set(draws).count == draws.count)
        // Every bit varies across draws (a word copied half-filled would leave some bits fixed).
        #expect(draws.reduce(0, |) == .max)
        #expect(draws.reduce(.max, &) == 0)
    }
}
