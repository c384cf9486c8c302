import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkServer

/// The lean path for clicks answers exactly as the router: one corpus of requests (every kind of click × every
/// kind of client × GET and HEAD × alone, kept alive or pipelined × HTTP/1.1 and 1.0, and malformed heads) sent on
/// real sockets to a server with the lean path and to one without it, the two answers compared byte for byte but
/// for `Date` and `X-Request-Id`.
@Suite("Lean click path", .loadsTheMachine) struct LeanClickDifferentialTests {
    typealias T = TestSupport

    static let agents = [T.Agent.iPhone, T.Agent.iPad, T.Agent.android, T.Agent.desktop, T.Agent.crawler]

    /// The links both servers get, by the same API calls: a short link with events only, one with apps (the
    /// iPhone's preview page, Android's kept click), one that skips the preview (`efr`), one with rules and
    /// variants, one with a click limit (always the router's), a disabled one and one with somewhere to go instead.
    static let mints: [(code: String, extra: String)] = [
        ("web1", #""longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fweb&utm_source=lean""#),
        ("apps1", #""longDynamicLink": "https://go.pictlink.com/?\#(T.sampleQuery)&st=Lean&sd=Both%20paths""#),
        ("efr1", #""longDynamicLink": "https://go.pictlink.com/?\#(T.sampleQuery)&efr=1""#),
        (
            "rules1",
            #""longDynamicLink": "https://go.pictlink.com/?\#(T.sampleQuery)", "rules": {"rules": [{"when": {"platforms": ["android"]}, "then": {"link": "https://pictlink.com/android-rule"}}], "variants": [{"name": "a", "weight": 50}, {"name": "b", "weight": 50, "destination": {"ofl": "https://pictlink.com/b"}}]}"#
        ),
        ("limited1", #""longDynamicLink": "https://go.pictlink.com/?\#(T.sampleQuery)", "maxClicks": 100000"#),
        ("gone1", #""longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fgone""#),
        (
            "gone2",
            #""longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fgone", "expiredLink": "https://pictlink.com/over""#
        ),
    ]

    /// Every path a click can take, as `path` on `host`.
    static let targets: [(host: String, path: String)] = [
        ("go.pictlink.com", "/web1"), ("go.pictlink.com", "/apps1"), ("go.pictlink.com", "/efr1"), ("go.pictlink.com", "/rules1"),
        ("go.pictlink.com", "/limited1"), ("go.pictlink.com", "/gone1"), ("go.pictlink.com", "/gone2"), ("go.pictlink.com", "/apps1?d=1"),
        ("go.pictlink.com", "/gone1?d=1"), ("go.pictlink.com", "/missing1"), ("go.pictlink.com", "/?\(T.sampleQuery)"),
        ("go.pictlink.com", "/?link=javascript%3Aalert(1)"), ("go.pictlink.com", "/p/42"), ("go.pictlink.com", "/campaign/spring"),
        ("go.pictlink.com", "/no/such/path"), ("unknown.example", "/web1"), ("GO.pictlink.com.", "/web1"), ("go.pictlink.com", "/healthz"),
        ("go.pictlink.com", "/.well-known/assetlinks.json"), ("go.pictlink.com", "/v1/nothing"),
    ]

    /// Each case is the bytes of one connection; each ends with a request that closes it, so that the whole answer
    /// is what arrives before the end of the stream.
    static func corpus() -> [String] {
        let closing = "GET /healthz HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: close\r\n\r\n"
        func request(
            _ method: String, _ target: (host: String, path: String), agent: String, version: String = "1.1", extra: String = ""
        )
            -> String
        {
            "\(method) \(target.path) HTTP/\(version)\r\nHost: \(target.host)\r\nUser-Agent: \(agent)\r\nAccept-Language: ja,en;q=0.8\r\n\(extra)\r\n"
        }
        var cases: [String] = []
        for target in targets {
            for method in ["GET", "HEAD"] {
                for agent in agents {
                    // Alone on its connection, asking to close it.
                    cases.append(request(method, target, agent: agent, extra: "Connection: close\r\n"))
                    // Kept alive, then another request.
                    cases.append(request(method, target, agent: agent) + closing)
                }
                // HTTP/1.0, with and without keep-alive.
                cases.append(request(method, target, agent: T.Agent.android, version: "1.0") + closing)
                cases.append(request(method, target, agent: T.Agent.iPhone, version: "1.0", extra: "Connection: keep-alive\r\n") + closing)
            }
            // Pipelined: every client and method in one write, and the router's requests between the lean path's.
            cases.append(
                agents.map { request("GET", target, agent: $0) + request("HEAD", target, agent: $0) }.joined()
                    + request("GET", ("go.pictlink.com", "/limited1"), agent: T.Agent.android) + request("GET", target, agent: T.Agent.desktop)
                    + closing)
            // A marked click (the router checks its key), a request id of the caller's, a body on a GET.
            cases.append(request("GET", target, agent: T.Agent.android, extra: "Authorization: Bearer rl_wrong\r\n") + closing)
            cases.append(request("GET", target, agent: T.Agent.iPhone, extra: "X-Request-Id: caller-1\r\n") + closing)
            cases.append(request("GET", target, agent: T.Agent.desktop, extra: "Content-Length: 5\r\n") + "hello" + closing)
            // Connection: close in the middle of a pipeline: nothing after it is answered.
            cases.append(
                request("GET", target, agent: T.Agent.android, extra: "Connection: close\r\n") + request("GET", target, agent: T.Agent.iPhone))
        }
        // Malformed heads, alone and after a click the lean path answers.
        let click = request("GET", ("go.pictlink.com", "/web1"), agent: T.Agent.desktop)
        for malformed in [
            "GET /web1 HTTP/1.1\r\nHost: go.pictlink.com\r\nHost: other.example\r\n\r\n",
            "GET /web1 HTTP/1.1\r\nUser-Agent: no-host\r\n\r\n",
            "GARBAGE\r\n\r\n",
            "GET /web1 HTTP/1.1\r\nHost: go.pictlink.com\r\nNo colon here\r\n\r\n",
            "GET /web1 HTTP/9.9\r\nHost: go.pictlink.com\r\n\r\n",
            "GET /web1 HTTP/1.1\r\nHost: go.pictlink.com\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET web1 HTTP/1.1\r\nHost: go.pictlink.com\r\n\r\n",
        ] {
            cases.append(malformed + closing)
            cases.append(click + malformed + closing)
        }
        // Paths the router takes to its own routes (it skips empty segments) or to none: never a click.
        for path in [
            "//healthz", "/healthz/", "/healthz/.", "/healthz/x", "//metrics", "/apple-app-site-association/",
            "//.well-known/assetlinks.json", "//v1/nothing", "//console", "//_/beacon",
        ] {
            for method in ["GET", "HEAD"] {
                cases.append(request(method, ("go.pictlink.com", path), agent: T.Agent.desktop) + closing)
                cases.append(click + request(method, ("go.pictlink.com", path), agent: T.Agent.iPhone) + click + closing)
            }
        }
        return cases
    }

    /// What arrives on one connection for `bytes` until the server ends the stream (or 10 s pass), with the values
    /// of `Date` and `X-Request-Id` blanked.
    static func exchange(_ bytes: String, port: Int) throws -> String {
        let descriptor = try BrokenRequestTests.connected(port: port)
        defer { close(descriptor) }
        let sent = Array(bytes.utf8)
        _ = sent.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[0..<count]
            } else {
                if count < 0 { received += Array("<\(errno == EAGAIN ? "open after 10 s" : "error \(errno)")>".utf8) }
                break
            }
        }
        return String(decoding: received, as: UTF8.self)
            .replacing(/\r\n(Date|X-Request-Id): [^\r]*/.ignoresCase(), with: { "\r\n\($0.output.1): -" })
    }

    /// A server on a fresh store with the links minted, clicks' ids counted from 1, its lean answers counted.
    static func serve(
        lean: Bool, _ body: @Sendable (_ port: Int, _ leanAnswers: NIOLockedValueBox<Int>) async throws -> Void
    ) async throws {
        let (store, key) = try await T.storeWithKey()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, relink: T.configuration, logLevel: .critical, store: store)
        configuration.leanClicks = lean
        let answers = NIOLockedValueBox(0)
        configuration.onLeanClick = { answers.withLockedValue { $0 += 1 } }
        let next = NIOLockedValueBox(0)
        configuration.clickIDs = {
            let number = next.withLockedValue { value -> Int in
                value += 1
                return value
            }
            return "leanclick" + String(repeating: "0", count: 13 - String(number).count) + String(number)
        }
        try await buildApplication(configuration: configuration).test(.live) { client in
            for (code, extra) in mints {
                let minted = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{\#(extra), "suffix": {"option": "CUSTOM", "customSuffix": "\#(code)"}}"#))
                #expect(minted.status == .ok, "\(code): \(minted.text)")
            }
            for code in ["gone1", "gone2"] {
                let disabled = try await client.execute(
                    uri: "/v1/links/\(PercentEncoding.encodeQueryValue("https://go.pictlink.com/\(code)"))?key=\(key)", method: .patch,
                    headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"disabled": true}"#))
                #expect(disabled.status == .ok, "\(code): \(disabled.text)")
            }
            try await body(try #require(client.port), answers)
        }
    }

    @Test func theLeanPathAnswersAsTheRouterByteForByte() async throws {
        let corpus = Self.corpus()
        let lean = NIOLockedValueBox<([String], Int)>(([], 0))
        try await Self.serve(lean: true) { port, answers in
            var received: [String] = []
            for bytes in corpus { received.append(try await offThePool { try Self.exchange(bytes, port: port) }) }
            lean.withLockedValue { $0 = (received, answers.withLockedValue { $0 }) }
        }
        let router = NIOLockedValueBox<([String], Int)>(([], 0))
        try await Self.serve(lean: false) { port, answers in
            var received: [String] = []
            for bytes in corpus { received.append(try await offThePool { try Self.exchange(bytes, port: port) }) }
            router.withLockedValue { $0 = (received, answers.withLockedValue { $0 }) }
        }
        let (leanAnswers, leanCount) = lean.withLockedValue { $0 }
        let (routerAnswers, routerCount) = router.withLockedValue { $0 }
        #expect(routerCount == 0)
        // Most clicks in the corpus are on links in memory: the lean path answered them.
        #expect(leanCount >= corpus.count / 2, "the lean path answered \(leanCount) requests on \(corpus.count) connections")
        var differences = 0
        for (index, bytes) in corpus.enumerated() where leanAnswers[index] != routerAnswers[index] {
            differences += 1
            if differences <= 3 {
                Issue.record(
                    "case \(index) differs:\n\(bytes.prefix(400))\n--- lean:\n\(leanAnswers[index].prefix(1500))\n--- router:\n\(routerAnswers[index].prefix(1500))"
                )
            }
        }
        #expect(differences == 0, "\(differences) of \(corpus.count) cases differ")
        // Every answer ended as the corpus meant (no connection left open).
        #expect(!leanAnswers.contains { $0.contains("<open after 10 s>") })
    }

    /// A client that pipelines clicks and never reads: once their answers wait, the rest go to the router, which
    /// stops reading, so answers do not pile up in memory until the send timeout.
    @Test func aClientThatNeverReadsStopsTheLeanPath() async throws {
        let pipelined = 20_000
        let answered = NIOLockedValueBox(0)
        try await Self.serve(lean: true) { port, answers in
            try await offThePool {
                let descriptor = try BrokenRequestTests.connected(port: port, receiveBuffer: 4096)
                defer { close(descriptor) }
                var timeout = timeval(tv_sec: 1, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let click = "GET /web1 HTTP/1.1\r\nHost: go.pictlink.com\r\nUser-Agent: \(T.Agent.crawler)\r\n\r\n"
                let chunk = Array(String(repeating: click, count: 100).utf8)
                // Until the server stops reading (the send times out) or every request is sent.
                for _ in 0..<(pipelined / 100) {
                    let sent = chunk.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if sent < chunk.count { break }
                }
                // Until the server has answered all it read.
                var last = -1
                while last != answers.withLockedValue({ $0 }) {
                    last = answers.withLockedValue { $0 }
                    usleep(500_000)
                }
                answered.withLockedValue { $0 = last }
            }
        }
        let count = answered.withLockedValue { $0 }
        #expect(count > 0)
        #expect(count < pipelined / 4, "the lean path answered \(count) of \(pipelined) requests to a client that never reads")
    }
}
