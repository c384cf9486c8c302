import Testing

@testable import RelinkServer

@Suite("Random numbers for click ids")
struct RandomPoolTests {
    /// Each draw is new: the words of one read and those of the next are never handed out twice.
    @Test func drawsAreNeverRepeated() {
        var generator = RandomPool.Generator()
        let draws = (0..<4_096).map { _ in generator.next() }
        #expect(Set(draws).count == draws.count)
        // Every bit is set in some draw and clear in another.
        #expect(draws.reduce(0, |) == .max)
        #expect(draws.reduce(.max, &) == 0)
    }
}
