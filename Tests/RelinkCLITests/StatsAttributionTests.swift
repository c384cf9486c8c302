import RelinkCore
import Testing

@testable import relink

@Suite("relink stats --attribution")
struct StatsAttributionTests {
    @Test func printsPrecisionAndRecallPerConfidence() {
        let estimate = AttributionEstimate(
            days: 7,
            decisions: [
                (confidence: .default, sameClick: true, count: 49), (confidence: .default, sameClick: false, count: 1),
                (confidence: .weak, sameClick: true, count: 6), (confidence: .weak, sameClick: false, count: 4),
                (confidence: nil, sameClick: false, count: 40),
            ])
        let report = StatsCommand.attributionReport(estimate, days: 7)
        #expect(report.contains("DEFAULT"))
        #expect(report.contains("98.0%"))  // DEFAULT precision
        #expect(report.contains("49.0%"))  // DEFAULT recall
        #expect(report.contains("60.0%"))  // WEAK precision
        #expect(report.contains("100 claim(s) settled by their token in the last 7 day(s)"))
    }

    @Test func saysSoWhenNothingWasScored() {
        #expect(StatsCommand.attributionReport(nil, days: 3).hasPrefix("no claims settled by a token in the last 3 day(s)"))
    }
}
