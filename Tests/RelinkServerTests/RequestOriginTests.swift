import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

@Suite("Request origin")
struct RequestOriginTests {
    typealias T = TestSupport

    static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let xForwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let xRealIP = HTTPField.Name("X-Real-IP")!
    static let forwarded = HTTPField.Name("Forwarded")!
    static let hostField = HTTPField.Name("Host")!

    static let proxy = "10.0.0.1"
    static let client = "203.0.113.7"

    static func policy(_ header: ForwardedHeaderKind, proxies: [String]? = nil) -> ForwardedHeaderPolicy {
        .trusting(TrustedProxies(proxies.map { $0.map { IPNetwork($0)! } } ?? IPNetwork.loopbackAndPrivate), header: header)
    }

    /// The origin of a request with these header lines (in order, repeats allowed) from `peer`.
    static func origin(
        _ fields: [(HTTPField.Name, String)], peer: String? = proxy, policy: ForwardedHeaderPolicy = policy(.xForwardedFor),
        authority: String = "internal.example"
    ) throws -> RequestOrigin {
        var headers = HTTPFields()
        for (name, value) in fields { headers.append(HTTPField(name: name, value: value)) }
        let remote = try peer.map { try SocketAddress(ipAddress: $0, port: 40000) }
        return RequestOrigin(headers: headers, authority: authority, remoteAddress: remote, policy: policy)
    }

    /// The client address the chain `header` gives, behind `peer`.
    static func clientAddress(
        _ name: HTTPField.Name, _ values: String..., peer: String? = proxy, policy: ForwardedHeaderPolicy = policy(.xForwardedFor)
    ) throws -> String? {
        try origin(values.map { (name, $0) }, peer: peer, policy: policy).clientAddress
    }

    // MARK: - Who is asked

    @Test func withoutTrustNoHeaderCounts() throws {
        let fields: [(HTTPField.Name, String)] = [
            (Self.xForwardedFor, "6.6.6.6"), (Self.forwarded, "for=6.6.6.6;host=evil.example;proto=https"), (Self.xRealIP, "6.6.6.6"),
            (Self.xForwardedHost, "evil.example"), (Self.xForwardedProto, "https"),
        ]
        let origin = try Self.origin(fields, peer: Self.client, policy: .none)
        #expect(origin.clientAddress == Self.client)
        #expect(origin.host == "internal.example")
        #expect(origin.scheme == "http")
    }

    @Test func anUntrustedPeerIsTheClientWhateverItSends() throws {
        for kind in ForwardedHeaderKind.allCases {
            let fields: [(HTTPField.Name, String)] = [
                (Self.xForwardedFor, "10.0.0.2"), (Self.forwarded, "for=10.0.0.2;host=evil.example;proto=https"), (Self.xRealIP, "10.0.0.2"),
                (Self.xForwardedHost, "evil.example"), (Self.xForwardedProto, "https"),
            ]
            let origin = try Self.origin(fields, peer: Self.client, policy: Self.policy(kind))
            #expect(origin.clientAddress == Self.client, "\(kind)")
            #expect(origin.host == "internal.example", "\(kind)")
            #expect(origin.scheme == "http", "\(kind)")
        }
        // The default proxies are replaced, not extended, by the operator's list.
        let onlyTheLoadBalancer = Self.policy(.xForwardedFor, proxies: ["198.51.100.0/24"])
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6", peer: "10.0.0.1", policy: onlyTheLoadBalancer) == "10.0.0.1")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7", peer: "198.51.100.9", policy: onlyTheLoadBalancer) == Self.client)
    }

    @Test func aPeerWithoutAnAddressIsNotTrusted() throws {
        let origin = try Self.origin([(Self.xForwardedFor, Self.client), (Self.xForwardedHost, "evil.example")], peer: nil)
        #expect(origin.clientAddress == nil)
        #expect(origin.host == "internal.example")
        // Only when a test asks for it.
        let trusting = ForwardedHeaderPolicy.trusting(TrustedProxies(trustsPeerWithoutAddress: true), header: .xForwardedFor)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7", peer: nil, policy: trusting) == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "garbage", peer: nil, policy: trusting) == nil)
    }

    // MARK: - X-Forwarded-For

    @Test func xForwardedForSpoofedPrefixLosesToWhatTheProxyAppended() throws {
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6,203.0.113.7") == Self.client)
        // The client's own line, then the proxy's.
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6", "203.0.113.7") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 1.1.1.1", "203.0.113.7") == Self.client)
    }

    @Test func xForwardedForRightmostUntrustedWinsOverPrivateLookingFakes() throws {
        // Client → 203.0.113.7 is the real client; a CDN-less chain of two internal proxies.
        #expect(try Self.clientAddress(Self.xForwardedFor, "10.0.0.9, 203.0.113.7, 10.0.0.2") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "10.0.0.9, 203.0.113.7", "10.0.0.2") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "127.0.0.1, 192.168.1.1, 203.0.113.7") == Self.client)
        // Every hop trusted: the leftmost.
        #expect(try Self.clientAddress(Self.xForwardedFor, "10.0.0.9, 10.0.0.2") == "10.0.0.9")
        // No header: the peer.
        #expect(try Self.clientAddress(Self.xForwardedFor) == Self.proxy)
    }

    @Test func xForwardedForGarbageStopsTheWalkAtTheNearestValidAddress() throws {
        #expect(try Self.clientAddress(Self.xForwardedFor, "203.0.113.7, garbage") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "unknown") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, garbage, 10.0.0.2") == "10.0.0.2")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 1.2.3.4.5, 10.0.0.2") == "10.0.0.2")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, example.com") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, [1.2.3.4]") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6 203.0.113.7") == Self.proxy)
        // Garbage to the left of the client does not matter.
        #expect(try Self.clientAddress(Self.xForwardedFor, "<script>, unknown, 203.0.113.7") == Self.client)
        // Empty list elements carry nothing.
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7, ,") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "") == Self.proxy)
    }

    @Test func xForwardedForIPv6AndPorts() throws {
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 2001:db8::7") == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, [2001:db8::7]:4711") == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, [2001:db8::7]") == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7:5000") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, ::ffff:203.0.113.7") == Self.client)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, [2001:db8::7]:port") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, [2001:db8::7") == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7:5000:1") == Self.proxy)
        // Trusted IPv6 and IPv4-mapped proxies.
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 2001:db8::7, fd00::2", peer: "::1") == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6, 203.0.113.7, ::ffff:10.0.0.2", peer: "::ffff:10.0.0.1") == Self.client)
        // An untrusted IPv6 peer.
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6", peer: "2001:db8::9") == "2001:db8:0:0:0:0:0:9")
    }

    @Test func xForwardedForReadsAtMostThirtyTwoEntries() throws {
        let chain = ["203.0.113.7"] + (1...40).map { "10.0.1.\($0)" }
        let address = try Self.clientAddress(Self.xForwardedFor, chain.joined(separator: ", "))
        #expect(address == "10.0.1.9")  // the 32nd from the right; never an address beyond it
    }

    // MARK: - Forwarded

    @Test func forwardedSpoofedPrefixLosesToWhatTheProxyAppended() throws {
        let policy = Self.policy(.forwarded)
        #expect(try Self.clientAddress(Self.forwarded, "for=6.6.6.6, for=203.0.113.7", policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, "for=6.6.6.6", "for=203.0.113.7;proto=https", policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, "for=10.0.0.9, for=203.0.113.7, for=10.0.0.2", policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, "For=\"6.6.6.6\", FOR=\"203.0.113.7\"", policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, "for=10.0.0.9;by=10.0.0.1", policy: policy) == "10.0.0.9")
    }

    @Test func forwardedQuotesBracketsAndPorts() throws {
        let policy = Self.policy(.forwarded)
        #expect(try Self.clientAddress(Self.forwarded, #"for="[2001:db8::7]:4711""#, policy: policy) == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.forwarded, #"for="[2001:db8::7]""#, policy: policy) == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.forwarded, #"for="[2001:db8::7]:_abc""#, policy: policy) == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.forwarded, #"for="203.0.113.7:80""#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, "for=203.0.113.7:80", policy: policy) == Self.client)
        // Commas and semicolons inside quotes separate nothing.
        #expect(try Self.clientAddress(Self.forwarded, #"for=6.6.6.6;ext="a, for=1.1.1.1; b", for=203.0.113.7"#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, #"for=203.0.113.7;ext="a, for=1.1.1.1""#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, #"for=203.0.113.7;ext="a\", for=1.1.1.1""#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, #"for="203.0.113\.7""#, policy: policy) == Self.client)
    }

    @Test func forwardedGarbageStopsTheWalkAtTheNearestValidAddress() throws {
        let policy = Self.policy(.forwarded)
        for element in [
            "for=unknown", "for=_hidden", #"for="_gazonk""#, "proto=https", "for=example.com", "for=1.2.3.4;for=5.6.7.8", "for",
            #"for="203.0.113.7"#, "for=203.0.113.7 x", "for==203.0.113.7", #"for=""#, "for=[1.2.3.4]",
        ] {
            #expect(try Self.clientAddress(Self.forwarded, "for=6.6.6.6, " + element, policy: policy) == Self.proxy, "\(element)")
            #expect(try Self.clientAddress(Self.forwarded, "for=6.6.6.6, \(element), for=10.0.0.2", policy: policy) == "10.0.0.2", "\(element)")
        }
        // A client's unbalanced quote cannot swallow the element the proxy appends to its line.
        #expect(try Self.clientAddress(Self.forwarded, #"for="6.6.6.6, for=203.0.113.7"#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, #"for="6.6.6.6\", for=203.0.113.7"#, policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.forwarded, #"for=6.6.6.6", for=203.0.113.7"#, policy: policy) == Self.client)
    }

    // MARK: - X-Real-IP

    @Test func xRealIPIsOneAddressTheProxySets() throws {
        let policy = Self.policy(.xRealIP)
        #expect(try Self.clientAddress(Self.xRealIP, "203.0.113.7", policy: policy) == Self.client)
        #expect(try Self.clientAddress(Self.xRealIP, " 2001:db8::7 ", policy: policy) == "2001:db8:0:0:0:0:0:7")
        #expect(try Self.clientAddress(Self.xRealIP, "10.0.0.9", policy: policy) == "10.0.0.9")
        // A client's line before the proxy's.
        #expect(try Self.clientAddress(Self.xRealIP, "6.6.6.6", "203.0.113.7", policy: policy) == Self.client)
        // Not an address: the peer.
        #expect(try Self.clientAddress(Self.xRealIP, "6.6.6.6, 203.0.113.7", policy: policy) == Self.proxy)
        #expect(try Self.clientAddress(Self.xRealIP, "unknown", policy: policy) == Self.proxy)
        #expect(try Self.clientAddress(Self.xRealIP, policy: policy) == Self.proxy)
    }

    // MARK: - Only the configured header

    @Test func headersOfAnotherKindAreIgnored() throws {
        let all: [(HTTPField.Name, String)] = [
            (Self.xForwardedFor, "198.51.100.1"), (Self.forwarded, "for=198.51.100.2;host=forwarded.example;proto=https"),
            (Self.xRealIP, "198.51.100.3"),
        ]
        #expect(try Self.origin(all, policy: Self.policy(.xForwardedFor)).clientAddress == "198.51.100.1")
        #expect(try Self.origin(all, policy: Self.policy(.forwarded)).clientAddress == "198.51.100.2")
        #expect(try Self.origin(all, policy: Self.policy(.xRealIP)).clientAddress == "198.51.100.3")
        // Only the configured kind, even when it is missing.
        #expect(try Self.clientAddress(Self.forwarded, "for=6.6.6.6", policy: Self.policy(.xForwardedFor)) == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6", policy: Self.policy(.forwarded)) == Self.proxy)
        #expect(try Self.clientAddress(Self.xForwardedFor, "6.6.6.6", policy: Self.policy(.xRealIP)) == Self.proxy)
        #expect(try Self.clientAddress(Self.xRealIP, "6.6.6.6", policy: Self.policy(.xForwardedFor)) == Self.proxy)
        // Forwarded's host and proto count only with `forwarded`; X-Forwarded-Host and -Proto never with it.
        let headers: [(HTTPField.Name, String)] = [
            (Self.forwarded, "for=203.0.113.7;host=forwarded.example;proto=https"), (Self.xForwardedHost, "x.example"),
            (Self.xForwardedProto, "https"),
        ]
        let viaForwarded = try Self.origin(Array(headers.dropLast()), policy: Self.policy(.forwarded))
        #expect(viaForwarded.host == "forwarded.example")
        #expect(viaForwarded.scheme == "https")
        let notXForwarded = try Self.origin(Array(headers.dropFirst()), policy: Self.policy(.forwarded))
        #expect(notXForwarded.host == "internal.example")
        #expect(notXForwarded.scheme == "http")
        for kind in [ForwardedHeaderKind.xForwardedFor, .xRealIP] {
            let origin = try Self.origin([headers[0]], policy: Self.policy(kind))
            #expect(origin.host == "internal.example")
            #expect(origin.scheme == "http")
            let xForwarded = try Self.origin(headers, policy: Self.policy(kind))
            #expect(xForwarded.host == "x.example")
            #expect(xForwarded.scheme == "https")
        }
    }

    // MARK: - Host and scheme

    @Test func hostAndSchemeComeFromWhatTheNearestProxyAdded() throws {
        let spoofed = try Self.origin([
            (Self.xForwardedHost, "evil.example"), (Self.xForwardedHost, "attacker.example, go.pictlink.com"),
            (Self.xForwardedProto, "http, https"),
        ])
        #expect(spoofed.host == "go.pictlink.com")
        #expect(spoofed.scheme == "https")
        let forwarded = try Self.origin(
            [(Self.forwarded, "for=6.6.6.6;host=evil.example;proto=http, for=203.0.113.7;host=go.pictlink.com;proto=HTTPS")],
            policy: Self.policy(.forwarded))
        #expect(forwarded.host == "go.pictlink.com")
        #expect(forwarded.scheme == "https")
        #expect(forwarded.clientAddress == Self.client)
        // The proxy's element says nothing of the host: a client's element to its left does not either.
        let silent = try Self.origin(
            [(Self.forwarded, "for=6.6.6.6;host=evil.example;proto=https, for=203.0.113.7")], policy: Self.policy(.forwarded))
        #expect(silent.host == "internal.example")
        #expect(silent.scheme == "http")
        let quoted = try Self.origin([(Self.forwarded, #"for=203.0.113.7;host="[2001:db8::1]:8443""#)], policy: Self.policy(.forwarded))
        #expect(quoted.host == "[2001:db8::1]:8443")
    }

    /// A name's final dot is the root of DNS: `go.pictlink.com.` is `go.pictlink.com`, whichever line names it.
    @Test func aHostsFinalDotNamesTheSameHost() throws {
        let cases = [
            ("go.pictlink.com.", "go.pictlink.com"), ("go.pictlink.com.:8443", "go.pictlink.com:8443"), ("localhost.", "localhost"),
            // Left as they are: no final dot, an empty label before it, nothing but the dot, a bracketed address.
            ("go.pictlink.com", "go.pictlink.com"), ("go.pictlink.com..", "go.pictlink.com.."), (".", "."), (".:80", ".:80"),
            ("[2001:db8::1]:443", "[2001:db8::1]:443"), ("", ""),
        ]
        for (host, expected) in cases {
            #expect(RequestOrigin.withoutFinalDot(host) == expected, "\(host)")
        }
        #expect(try Self.origin([], authority: "go.pictlink.com.").host == "go.pictlink.com")
        #expect(try Self.origin([(Self.xForwardedHost, "go.pictlink.com.:8443")]).host == "go.pictlink.com:8443")
    }

    @Test func invalidHostsAndSchemesAreIgnored() throws {
        for host in [
            "evil.example/path", "evil.example@go.pictlink.com", "a b", "go.pictlink.com:", "go.pictlink.com:99999a",
            "go.pictlink.com:80:80", "[2001:db8::1", "[zz::1]", "[2001:db8::1]x", "\"go.pictlink.com\"", "", "javascript:alert(1)",
            String(repeating: "a", count: 256),
        ] {
            let origin = try Self.origin([(Self.xForwardedHost, "go.pictlink.com"), (Self.xForwardedHost, host)])
            #expect(origin.host == "internal.example", "\(host)")
        }
        for host in ["go.pictlink.com", "go.pictlink.com:8443", "[2001:db8::1]", "[2001:db8::1]:443", "under_score.example", "192.0.2.1:80"] {
            #expect(try Self.origin([(Self.xForwardedHost, host)]).host == host)
        }
        for proto in ["javascript", "ftp", "https ;", "", "http s"] {
            let origin = try Self.origin([(Self.xForwardedProto, proto)])
            #expect(origin.scheme == "http", "\(proto)")
        }
        #expect(try Self.origin([(Self.xForwardedProto, "HTTPS")]).scheme == "https")
        #expect(try Self.origin([(Self.xForwardedProto, " https ")]).scheme == "https")
        let forwarded = try Self.origin(
            [(Self.forwarded, #"for=203.0.113.7;host="evil.example/x";proto=gopher"#)], policy: Self.policy(.forwarded))
        #expect(forwarded.host == "internal.example")
        #expect(forwarded.scheme == "http")
    }

    // MARK: - Through the application

    /// Claims from many spoofed addresses behind one real client share its rate limit: with the leftmost (client-
    /// chosen) address as the key, each would get its own bucket and none would be limited.
    @Test func aSpoofedAddressDoesNotGetPastTheRateLimit() async throws {
        let app = try buildApplication(
            configuration: ServerConfiguration(
                port: 0, relink: T.configuration, forwardedHeaders: .defaultTrusting, logLevel: .error, store: try SQLiteStore()))
        // A real socket: the peer is 127.0.0.1, a default trusted proxy.
        try await app.test(.ahc(.http)) { client in
            func claim(_ forwardedFor: String) async throws -> HTTPResponse.Status {
                try await client.execute(
                    uri: "/v1/installAttribution", method: .post, headers: [Self.xForwardedFor: forwardedFor], body: ByteBuffer(string: "{}")
                ).status
            }
            // Concurrent batches, so that the bucket empties far faster than it refills even on a busy machine.
            var limited = 0
            var sent = 0
            while limited == 0 && sent < 20 * ClientLimiter.Endpoint.claim.defaultLimit.burst {
                limited += try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in sent..<(sent + 50) {
                        group.addTask { try await claim("6.6.\(index / 250).\(index % 250), 203.0.113.9") == .tooManyRequests }
                    }
                    return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
                }
                sent += 50
            }
            #expect(limited > 0)
            // Another client behind the same proxy is not limited.
            #expect(try await claim("203.0.113.10") != .tooManyRequests)
        }
    }

    @Test func aSpoofedHostCountsOnlyFromATrustedProxy() async throws {
        let headers: HTTPFields = [.userAgent: T.Agent.desktop, Self.xForwardedHost: "go.pictlink.com"]
        func status(_ policy: ForwardedHeaderPolicy) async throws -> HTTPResponse.Status {
            let app = try buildApplication(
                configuration: ServerConfiguration(
                    port: 0, relink: T.configuration, forwardedHeaders: policy, logLevel: .error, store: try SQLiteStore()))
            return try await app.test(.live) { client in
                try await client.execute(uri: "/p/42", method: .get, headers: headers).status
            }
        }
        #expect(try await status(.defaultTrusting) == .found)
        #expect(try await status(Self.policy(.xForwardedFor, proxies: ["198.51.100.0/24"])) == .notFound)
        #expect(try await status(Self.policy(.forwarded)) == .notFound)
        #expect(try await status(.none) == .notFound)
    }
}
