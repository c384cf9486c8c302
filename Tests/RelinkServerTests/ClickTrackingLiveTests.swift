import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import RelinkAPI
import RelinkCore
import Testing

@testable import RelinkServer

/// The tracking domain with a live email service: the tap's whole chain, and (on a live server, with raw request heads
/// where a test client would tidy them) the spellings of a request that might point the proxy elsewhere.
@Suite("Click tracking, live")
struct ClickTrackingLiveTests {
    typealias T = TestSupport

    /// A browser's tap on a tracking URL: the service counts it once and redirects to the short link, whose answer is
    /// the one a tap on the short link itself gets.
    @Test func aTapOnATrackingURLReachesTheShortLinksNormalAnswer() async throws {
        let (store, key) = try await T.storeWithKey()
        let service = ClickTrackingTests.EmailService()
        try await service.application().test(.live) { standIn in
            let port = try #require(standIn.port)
            // The router's test client, which sends the Host field given (the live one adds its own).
            try await ClickTrackingTests.relink(upstreamPort: port, store: store).test(.router) { client in
                let minted = try await T.mint(
                    "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fmail&ibi=jp.furyu.pictlink.ios&ofl=https%3A%2F%2Fpictlink.com%2Fweb",
                    key: key,
                    with: client)
                service.destination.withLockedValue { $0 = minted.shortLink }
                let shortPath = try #require(URL(string: minted.shortLink)?.path)
                for agent in [T.Agent.desktop, T.Agent.iPhone] {
                    let before = service.seen.withLockedValue { $0.count }
                    let tap = try await client.execute(
                        uri: "/uni/ls/click?upn=spring", method: .get,
                        headers: [HTTPField.Name("Host")!: ClickTrackingTests.trackingHost, .userAgent: agent])
                    #expect(tap.status == .found)
                    #expect(tap.headers[.location] == minted.shortLink)
                    #expect(service.seen.withLockedValue { $0.count } == before + 1, "the service counts the tap once")
                    // The browser follows the service's redirect to the short link, as a tap on it would go.
                    let followed = try await client.execute(
                        uri: shortPath, method: .get, headers: [HTTPField.Name("Host")!: "go.pictlink.com", .userAgent: agent])
                    let direct = try await client.execute(
                        uri: shortPath, method: .get, headers: [HTTPField.Name("Host")!: "go.pictlink.com", .userAgent: agent])
                    #expect(followed.status == direct.status)
                    #expect(followed.headers[.location] == direct.headers[.location])
                    #expect(followed.headers[.contentType] == direct.headers[.contentType])
                    if agent == T.Agent.desktop {
                        #expect(followed.headers[.location] == "https://pictlink.com/web")
                    } else {
                        #expect(followed.status == .ok, "the iPhone's preview page")
                    }
                }
            }
        }
    }

    /// Request heads that name another host than the tracking domain: an absolute-form target, two `Host` fields.
    /// None reaches the service; an absolute-form target naming the tracking domain reaches it with its path only.
    @Test func rawHeadsCannotPointTheProxyElsewhere() async throws {
        let service = ClickTrackingTests.EmailService()
        try await service.application().test(.live) { standIn in
            let upstreamPort = try #require(standIn.port)
            try await ClickTrackingTests.relink(upstreamPort: upstreamPort).test(.live) { client in
                let port = try #require(client.port)
                let tracking = ClickTrackingTests.trackingHost
                let heads = [
                    // The target's authority decides (RFC 9112 §3.2.2): another host, which Relink does not serve.
                    "GET http://evil.test/uni/x HTTP/1.1\r\nHost: \(tracking)\r\nConnection: close\r\n\r\n",
                    "GET http://127.0.0.1:\(upstreamPort)/uni/x HTTP/1.1\r\nHost: \(tracking)\r\nConnection: close\r\n\r\n",
                    // Two Host fields: refused before any route.
                    "GET /uni/x HTTP/1.1\r\nHost: \(tracking)\r\nHost: evil.test\r\nConnection: close\r\n\r\n",
                    "GET /uni/x HTTP/1.1\r\nHost: evil.test\r\nHost: \(tracking)\r\nConnection: close\r\n\r\n",
                ]
                for head in heads {
                    let answer = try await BrokenRequestTests.exchangeOffThePool(head, port: port)
                    #expect(answer.hasPrefix("HTTP/1.1 4"), "\(head.debugDescription): \(answer.prefix(200))")
                }
                #expect(service.seen.withLockedValue { $0.isEmpty }, "\(service.seen.withLockedValue { $0 })")
                let own = try await BrokenRequestTests.exchangeOffThePool(
                    "GET http://\(tracking)/uni/x?y=1 HTTP/1.1\r\nHost: \(tracking)\r\nConnection: close\r\n\r\n", port: port)
                #expect(own.hasPrefix("HTTP/1.1 302"), "\(own.prefix(200))")
                #expect(service.seen.withLockedValue { $0.map(\.target) } == ["/uni/x?y=1"])
                #expect(service.seen.withLockedValue { $0.first?.host } == tracking)
            }
        }
    }
}
