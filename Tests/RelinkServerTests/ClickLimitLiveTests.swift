import AsyncHTTPClient
import Foundation
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkServer

/// Click limits over real sockets: clicks arriving together on a link no cache holds yet (right after a start),
/// each lookup making its own instance of the link.
@Suite("Click limits, live", .loadsTheMachine) struct ClickLimitLiveTests {
    @Test func concurrentFirstClicksOnAnUncachedLinkPassExactlyItsLimit() async throws {
        let store = try SQLiteStore()
        // Several links, one burst each: the race a cache miss opens is narrow, and each burst is another try at it.
        var limited: [ShortLinkRecord] = []
        for (number, limit) in (Array(repeating: 5, count: 4) + [1, 3, 1, 3]).enumerated() {
            limited.append(try await BufferedWriterTests.link(in: store, code: "limited\(number)", maxClicks: limit))
        }
        let links = limited
        try await TestSupport.application(store: store).test(.live) { client in
            let port = try #require(client.port)
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            var failure: (any Error)?
            do { try await Self.burst(http, port: port, links: links) } catch { failure = error }
            try await http.shutdown()
            if let failure { throw failure }
        }
    }

    /// 50 clicks at once on each link, one link after the other: exactly its limit pass, the others are gone.
    static func burst(_ http: HTTPClient, port: Int, links: [ShortLinkRecord]) async throws {
        for link in links {
            let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/\(link.code)")
                        request.headers.add(name: "Host", value: "go.pictlink.com")
                        request.headers.add(name: "User-Agent", value: TestSupport.Agent.android)
                        let response = try await http.execute(request, timeout: .seconds(30))
                        _ = try await response.body.collect(upTo: 1 << 20)
                        return response.status.code
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let limit = try #require(link.maxClicks)
            #expect(statuses.filter { $0 == 302 }.count == limit, "\(link.code): \(statuses.filter { $0 == 302 }.count) passed")
            #expect(statuses.filter { $0 == 410 }.count == 50 - limit, "\(link.code): \(statuses)")
        }
    }
}
