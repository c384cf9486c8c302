import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// linkStats takes `durationDays` and `includeCrawlers` as the API documents them, and nothing that merely looks like them.
@Suite("Link stats query")
struct LinkStatsQueryTests {
    typealias T = TestSupport

    @Test func onlyDocumentedValuesAreTaken() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let minted = try await T.mint(ShortLinkAPITests.sampleLongLink, key: key, with: client)
            let stats = "/v1/\(PercentEncoding.encodeQueryValue(minted.shortLink))/linkStats?key=\(key)&"
            for (query, message) in [
                // Both were answered 200: `maybe` as false, `+7` as 7.
                ("durationDays=7&includeCrawlers=maybe", "includeCrawlers must be true or false, got 'maybe'"),
                ("durationDays=%2B7", "durationDays must be a whole number from 1 to 36500, got '+7'"),
                ("durationDays=abc", "durationDays must be a whole number"), ("durationDays=", "durationDays must be a whole number"),
                ("durationDays=%207", "durationDays must be a whole number"), ("durationDays=7.0", "durationDays must be a whole number"),
                ("durationDays=0", "durationDays must be a whole number"), ("durationDays=36501", "durationDays must be a whole number"),
                ("durationDays=99999999999999999999999", "durationDays must be a whole number"),
                ("durationDays=7&includeCrawlers=TRUE", "includeCrawlers must be true or false"),
                ("durationDays=7&includeCrawlers=", "includeCrawlers must be true or false"),
                ("durationDays=7&includeCrawlers=1", "includeCrawlers must be true or false"),
                ("durationDays=7&durationDays=30", "may each be given once"),
                ("durationDays=7&includeCrawlers=true&includeCrawlers=false", "may each be given once"),
            ] {
                let response = try await client.execute(uri: stats + query, method: .get)
                try ShortLinkAPITests.expectError(response, .badRequest, "INVALID_ARGUMENT", message)
            }
            for query in ["durationDays=7", "durationDays=007", "durationDays=36500&includeCrawlers=true", "durationDays=1&includeCrawlers=false"] {
                #expect(try await client.execute(uri: stats + query, method: .get).status == .ok, "\(query)")
            }
        }
    }
}
