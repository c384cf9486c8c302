import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// A claim from a crowded address (a carrier NAT, a campus, an attacker's own network) reads at most its bounds:
/// the latest clicks of its address and network (`CandidateBounds`) and at most `AddressActivity.countedClicks` of
/// the address's day, whose rate stands for the rest, so the crowd still reads as a crowd.
@Suite("Claims at a crowded address")
struct CrowdedAddressTests {
    typealias T = TestSupport
    typealias D = DeferredLinkTests

    static let crowdedAddress = "203.0.113.50"
    static let secrets = AddressHashSecrets(current: "the secret of the crowded address tests")
    static let bounds = CandidateBounds(perAddress: 40, perNetwork: 25)

    static func configuration(debug: Bool = false) -> RelinkConfiguration {
        var configuration = T.configuration
        for index in configuration.projects.indices {
            configuration.projects[index].deferred.candidateBounds = bounds
            configuration.projects[index].deferred.debug = debug
        }
        return configuration
    }

    /// `count` iPhone clicks from `address` alike the claims here, one a second until a second ago, and `count / 2`
    /// from its neighbours in the /24.
    static func crowd(_ store: SQLiteStore, count: Int, at address: String = crowdedAddress, now: Date = Date()) async throws {
        let hasher = AddressHasher(secrets: secrets)
        func click(_ id: String, _ seconds: Int, from address: String) throws -> PendingClick {
            let hashes = try #require(hasher.hashes(of: address))
            return PendingClick(
                id: id, projectId: "pictlink", platform: .iOS, linkId: nil, appId: "jp.furyu.pictlink.ios",
                requestedLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fcrowd&ibi=jp.furyu.pictlink.ios&isi=000000001",
                createdAt: now.addingTimeInterval(-Double(seconds)),
                fingerprint: DeviceFingerprint(
                    addressHash: hashes.address, networkHash: hashes.network, ipVersion: .v4, osVersion: "17.2", device: "iphone",
                    languages: ["en"]))
        }
        let neighbour = address.split(separator: ".").dropLast().joined(separator: ".") + ".51"
        let clicks = try (1...count).map { try click("crowd-\($0)", $0, from: address) }
        let neighbours = try (1...(count / 2)).map { try click("neighbour-\($0)", $0, from: neighbour) }
        try await store.insertPendingClicks(clicks + neighbours)
    }

    /// The claim's path: 3,000 clicks at the address, and the claim weighs no more than the bounds; the address's
    /// day, estimated from the 1,000 latest clicks' rate, expects tens of thousands of strangers, so no DEFAULT.
    @Test func aCrowdedAddressesClaimWeighsNoMoreThanItsBounds() async throws {
        let store = try SQLiteStore()
        try await Self.crowd(store, count: 3_000)
        let app = try T.application(Self.configuration(debug: true), trustForwardedHeaders: true, store: store, addressHashSecrets: Self.secrets)
        try await app.test(.router) { client in
            let answer = try D.answer(try await D.claim(client, #"{\#(D.iPhoneClaim), "installId": "crowded"}"#, from: Self.crowdedAddress))
            let debug = try #require(answer.debug)
            // "N of M recent clicks from this address or network were weighed": M is what the claim read.
            let read = try #require(debug.note.firstMatch(of: /of (\d+) recent clicks/).flatMap { Int($0.1) })
            #expect(read >= Self.bounds.perAddress && read <= Self.bounds.perAddress + Self.bounds.perNetwork, "\(debug.note)")
            let assessment = try #require(debug.assessment)
            #expect(assessment.expectedStrangersAtAddress > 10_000)
            #expect(answer.attributionConfidence != .default)
        }
    }

    /// The shadow scoring's path (and the claim's, below the HTTP layer): what `FingerprintClaim` reads for a
    /// crowded address is bounded.
    @Test func theShadowScoringReadsTheSameBounds() async throws {
        let store = try SQLiteStore()
        // One instant for the clicks and the claim: the estimated rate below must not depend on how long the insert took.
        let now = Date()
        try await Self.crowd(store, count: 3_000, now: now)
        let configuration = Self.configuration()
        let hasher = AddressHasher(secrets: Self.secrets)
        let service = DeferredLinkService(
            resolver: LinkResolver(configuration: configuration, store: store, cache: LinkCache(capacity: 16)),
            recorder: DeferredClickRecorder(store: store, configuration: configuration, logger: Logger(label: "test")),
            events: EventRecorder(store: store, interval: .seconds(3600), logger: Logger(label: "test")), hasher: hasher)
        let request = try JSONDecoder().decode(InstallAttributionRequest.self, from: Data("{\(D.iPhoneClaim)}".utf8))
        let claim = DeferredLinkService.Claim(
            app: try service.claimingApp(request, keyProject: nil), installKey: nil, hashes: hasher.hashes(of: Self.crowdedAddress), now: now)
        let install = try await DeferredLinkService.FingerprintClaim(request, claim, clientAddress: Self.crowdedAddress, service: service)
        let candidates = try await install.candidates(service)
        #expect(candidates.count >= Self.bounds.perAddress && candidates.count <= Self.bounds.perAddress + Self.bounds.perNetwork)
        #expect(Set(candidates.map(\.id)).count == candidates.count)
        // 1,000 counted in 1,000 s: 86,400 a day; 3,000 in the store would have said 3,000.
        #expect(install.activity.clicks >= 80_000)
        let token = try #require(try await store.pendingClick(id: "crowd-2999"))
        await service.scoreShadowMatch(request, claim, token: token, clientAddress: Self.crowdedAddress)
        let scored = try await store.shadowMatches(projectId: "pictlink", fromDay: 0)
        #expect(scored.map(\.count).reduce(0, +) == 1)
    }

    /// `deferredClicks` lists one link's clicks through its own index, newest first, never more than asked for.
    @Test func deferredClicksOfACrowdedLinkAreBoundedByTheirLimit() async throws {
        let store = try SQLiteStore()
        let now = Date()
        let clicks = (0..<5_000).map { index in
            PendingClick(
                id: "link-\(index)", projectId: "pictlink", platform: .android, linkId: 7, requestedLink: "https://go.pictlink.com/x",
                createdAt: now.addingTimeInterval(-Double(index)), fingerprint: DeviceFingerprint(addressHash: "a", networkHash: "n"))
        }
        try await store.insertPendingClicks(clicks)
        let listed = try await store.linkClicks(linkId: 7, limit: DeferredClicksController.maximumLimit)
        #expect(listed.count == DeferredClicksController.maximumLimit)
        #expect(listed.first?.id == "link-0")
    }

    /// "No match" answers are kept for their install ids only within the network's budget: each is a row for the
    /// claims' retention, and one network at the claim rate limit kept about a gigabyte a day of them. Past it the
    /// answer is still given; other networks keep theirs.
    @Test func unmatchedAnswersAreKeptWithinABudgetPerNetwork() async throws {
        let store = try SQLiteStore()
        let configuration = Self.configuration()
        let service = DeferredLinkService(
            resolver: LinkResolver(configuration: configuration, store: store, cache: LinkCache(capacity: 16)),
            recorder: DeferredClickRecorder(store: store, configuration: configuration, logger: Logger(label: "test")),
            events: EventRecorder(store: store, interval: .seconds(3600), logger: Logger(label: "test")),
            hasher: AddressHasher(secrets: Self.secrets), limiter: ClientLimiter(elapsed: { .zero }))
        func claim(_ installId: String, from address: String) async throws -> InstallAttributionResponse {
            let request = try JSONDecoder().decode(
                InstallAttributionRequest.self, from: Data(#"{\#(D.iPhoneClaim), "installId": "\#(installId)"}"#.utf8))
            return try await service.claim(request, clientAddress: address, keyProject: nil)
        }
        func kept(_ installId: String) async throws -> Bool {
            try await store.installClaim(projectId: "pictlink", installId: "IOS/jp.furyu.pictlink.ios/\(installId)") != nil
        }
        for index in 0..<210 {
            let answer = try await claim("flood-\(index)", from: "198.51.100.9")
            #expect(answer.deepLink == nil)
        }
        #expect(try await kept("flood-0"))
        #expect(try await kept("flood-199"))
        #expect(!(try await kept("flood-200")))
        #expect(!(try await kept("flood-209")))
        _ = try await claim("elsewhere", from: "203.0.113.200")
        #expect(try await kept("elsewhere"))
    }
}
