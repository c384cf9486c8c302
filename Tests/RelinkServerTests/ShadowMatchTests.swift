import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// Live precision: every claim settled by its token is also scored against what fingerprint matching alone would
/// have answered, in `/metrics`, in `linkStats` and so in `relink stats --attribution`.
@Suite("Live attribution precision")
struct ShadowMatchTests {
    typealias T = TestSupport
    typealias D = DeferredLinkTests

    @Test func tokenClaimsAreScoredAgainstTheFingerprintMatcher() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try ObservabilityTests.application(store: store)
        try await app.test(.router) { client in
            let minted = try await T.mint("https://go.pictlink.com/?" + T.sampleQuery, key: key, with: client)

            // Alone at its address: fingerprints would have found this click with confidence.
            let alone = try await D.click(client, "/?" + T.sampleQuery + "&utm_content=alone", from: "198.51.100.70")
            // Two alike iPhones behind one address: at best a guess, maybe the wrong one.
            let first = try await D.click(client, "/?" + T.sampleQuery + "&utm_content=a", from: "198.51.100.80")
            _ = try await D.click(client, "/?" + T.sampleQuery + "&utm_content=b", from: "198.51.100.80")
            // Its install comes from elsewhere: fingerprints would have found nothing.
            let moved = try await D.click(client, "/?" + T.sampleQuery + "&utm_content=moved", from: "198.51.100.90")

            for (page, address, install) in [(alone, "198.51.100.70", "s-1"), (first, "198.51.100.80", "s-2"), (moved, "192.0.2.99", "s-3")] {
                let token = try #require(D.attribute("data-clipboard", in: page.text))
                let answer = try D.answer(
                    try await D.claim(
                        client, #"{\#(D.iPhoneClaim), "uniqueMatchLinkToCheck": "\#(token)", "installId": "\#(install)"}"#, from: address))
                #expect(answer.attributionConfidence == .unique)
            }
            // A claim without a token is not scored: nothing says which click was right.
            _ = try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "s-4"}"#, from: "198.51.100.80")

            // Scoring runs after each answer: wait for all three.
            var estimate: AttributionEstimate?
            for _ in 0..<50 {
                let stats = try await client.execute(
                    uri: "/v1/\(PercentEncoding.encodeQueryValue(minted.shortLink))/linkStats?durationDays=7&key=\(key)",
                    method: .get)
                #expect(stats.status == .ok, "\(stats.text)")
                estimate = try JSONDecoder().decode(LinkStatsResponse.self, from: stats.data).attributionEstimate
                if estimate?.scoredClaims == 3 { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            let scored = try #require(estimate)
            #expect(scored.scoredClaims == 3)
            #expect(scored.default.answered == 1 && scored.default.right == 1)
            #expect(scored.default.precision == 1)
            #expect(scored.weak.answered == 1)
            #expect(scored.unmatched == 1)
            #expect(abs((scored.default.recall ?? 0) - 1.0 / 3) < 1e-9)

            let metrics = try await ObservabilityTests.scrape(client)
            #expect(ObservabilityTests.value(metrics, #"relink_shadow_matches_total{confidence="DEFAULT",outcome="same_click"}"#) == 1)
            #expect(ObservabilityTests.value(metrics, #"relink_shadow_matches_total{confidence="NONE",outcome="none"}"#) == 1)
            let weak =
                ObservabilityTests.value(metrics, #"relink_shadow_matches_total{confidence="WEAK",outcome="same_click"}"#)
                + ObservabilityTests.value(metrics, #"relink_shadow_matches_total{confidence="WEAK",outcome="other_click"}"#)
            #expect(weak == 1)
        }
    }

    @Test func theEstimateSumsDecisions() {
        let estimate = AttributionEstimate(
            days: 7,
            decisions: [
                (confidence: .default, sameClick: true, count: 98), (confidence: .default, sameClick: false, count: 2),
                (confidence: .weak, sameClick: true, count: 30), (confidence: .weak, sameClick: false, count: 20),
                (confidence: nil, sameClick: false, count: 50),
            ])
        #expect(estimate.scoredClaims == 200)
        #expect(estimate.default.precision == 0.98)
        #expect(estimate.default.recall == 0.49)
        #expect(estimate.weak.precision == 0.6)
        #expect(estimate.unmatched == 50)
        #expect(AttributionEstimate(days: 1, decisions: []).default.precision == nil)
    }
}
