import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkServer

/// RFC 9112 on a real socket: one `Host` line, and an absolute-form target's authority over it.
@Suite("Request heads")
struct RequestHeadCheckTests {
    typealias T = TestSupport

    static func exchange(_ head: String, policy: ForwardedHeaderPolicy = .none) async throws -> String {
        let app = try buildApplication(
            configuration: ServerConfiguration(port: 0, relink: T.configuration, forwardedHeaders: policy, logLevel: .error, store: try SQLiteStore())
        )
        return try await app.test(.live) { client in
            try await BrokenRequestTests.exchangeOffThePool(head, port: try #require(client.port))
        }
    }

    static func click(target: String, hosts: [String], extra: String = "") -> String {
        "GET \(target) HTTP/1.1\r\n" + hosts.map { "Host: \($0)\r\n" }.joined() + "User-Agent: \(T.Agent.desktop)\r\n" + extra
            + "Connection: close\r\n\r\n"
    }

    @Test func aSecondHostLineIsRefusedWith400() async throws {
        for hosts in [["go.pictlink.com", "evil.example"], ["evil.example", "go.pictlink.com"], ["go.pictlink.com", "go.pictlink.com"]] {
            let answer = try await Self.exchange(Self.click(target: "/p/42", hosts: hosts))
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(hosts): \(answer.prefix(80))")
            #expect(answer.contains("one Host header line"))
        }
        // One Host line is answered as ever.
        #expect(try await Self.exchange(Self.click(target: "/p/42", hosts: ["go.pictlink.com"])).hasPrefix("HTTP/1.1 302 "))
    }

    /// A Host with its name's final dot is the same host, on the lean path and the router's alike (it was the
    /// unknown-domain 404).
    @Test func aHostWithAFinalDotIsAnsweredAsWithout() async throws {
        for host in ["go.pictlink.com.", "GO.pictlink.com."] {
            let answer = try await Self.exchange(Self.click(target: "/p/42", hosts: [host]))
            #expect(answer.hasPrefix("HTTP/1.1 302 "), "\(host): \(answer.prefix(80))")
            let post = "POST /p/42 HTTP/1.1\r\nHost: \(host)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            #expect(try await Self.exchange(post).hasPrefix("HTTP/1.1 405 "), "\(host)")
        }
        #expect(try await Self.exchange(Self.click(target: "/p/42", hosts: ["go.pictlink.com.."])).hasPrefix("HTTP/1.1 404 "))
    }

    /// CONNECT is refused, and a request asking to switch protocols is answered and ends its connection: NIO's
    /// decoder reads nothing after either, and kept every byte that followed (one connection took 900 MB).
    @Test func upgradesEndTheConnectionAndConnectIsRefused() async throws {
        func head(_ method: HTTPMethod, _ extra: [(String, String)]) -> HTTPRequestHead {
            HTTPRequestHead(version: .http1_1, method: method, uri: "/x", headers: HTTPHeaders([("Host", "a.example")] + extra))
        }
        if case .refuse = RequestHeadCheck.verdict(head(.CONNECT, [])) {} else { Issue.record("CONNECT passed") }
        let upgrade = RequestHeadCheck.verdict(head(.GET, [("Connection", "keep-alive, Upgrade"), ("Upgrade", "websocket")]))
        #expect(upgrade == .amend(RequestHeadCheck.Amendment(close: true, upgrade: true)))
        // Upgrade without the connection option asks for nothing (and NIO's decoder goes on).
        #expect(RequestHeadCheck.verdict(head(.GET, [("Upgrade", "websocket")])) == .pass)
        // NIO's parser reads Proxy-Connection as Connection there.
        let proxied = RequestHeadCheck.verdict(head(.GET, [("Proxy-Connection", "Upgrade"), ("Upgrade", "x")]))
        #expect(proxied == .amend(RequestHeadCheck.Amendment(close: true, upgrade: true)))

        let app = try buildApplication(
            configuration: ServerConfiguration(port: 0, relink: T.configuration, logLevel: .error, store: try SQLiteStore()))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let heads = [
                ("GET /healthz HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n", "HTTP/1.1 200 "),
                (
                    "GET /p/42 HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAoAAAAAIAAAAA\r\n\r\n",
                    "HTTP/1.1 302 "
                ),
                ("CONNECT /x HTTP/1.1\r\nHost: go.pictlink.com\r\n\r\n", "HTTP/1.1 400 "),
                ("CONNECT go.pictlink.com:443 HTTP/1.1\r\nHost: go.pictlink.com:443\r\n\r\n", "HTTP/1.1 400 "),
            ]
            // An upgrade request's body is still read when it comes after the head (curl's h2c POST): it was reset.
            let late = try await offThePool { () throws -> String in
                let descriptor = try LoopbackSocket.connected(port: port)
                defer { close(descriptor) }
                var timeout = timeval(tv_sec: 10, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                let head = Array(
                    "POST /v1/shortLinks HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: Upgrade\r\nUpgrade: h2c\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n"
                        .utf8)
                _ = send(descriptor, head, head.count, 0)
                usleep(300_000)
                _ = send(descriptor, Array("{}".utf8), 2, 0)
                var buffer = [UInt8](repeating: 0, count: 4096)
                let count = recv(descriptor, &buffer, buffer.count, 0)
                return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : "(nothing: \(count))"
            }
            #expect(late.hasPrefix("HTTP/1.1 401 "), "\(late.prefix(120))")
            let pipelined = "GET /healthz HTTP/1.1\r\nHost: go.pictlink.com\r\n\r\n"
            for (head, status) in heads {
                // Nothing after the head is answered: the connection ends with its answer.
                let (answer, closed) = try await offThePool { try Self.exchangeLeavingOpen(head + pipelined, port: port) }
                #expect(answer.hasPrefix(status), "\(head.prefix(40)): \(answer.prefix(80))")
                #expect(answer.components(separatedBy: "HTTP/1.1 ").count == 2, "\(head.prefix(40)): \(answer)")
                #expect(closed, "\(head.prefix(40)): still open")
            }
        }
    }

    /// A request before the refused one on the same connection gets its answer first, in order.
    @Test func theRefusalFollowsTheAnswersBeforeIt() async throws {
        let first = "GET /healthz HTTP/1.1\r\nHost: go.pictlink.com\r\n\r\n"
        let answer = try await Self.exchange(first + Self.click(target: "/p/42", hosts: ["go.pictlink.com", "evil.example"]))
        let ok = try #require(answer.range(of: "HTTP/1.1 200 "))
        let refused = try #require(answer.range(of: "HTTP/1.1 400 "))
        #expect(ok.lowerBound < refused.lowerBound)
    }

    @Test func anAbsoluteFormTargetIsAnsweredForItsAuthority() async throws {
        let forTarget = try await Self.exchange(Self.click(target: "http://go.pictlink.com/p/42", hosts: ["other.test"]))
        #expect(forTarget.hasPrefix("HTTP/1.1 302 "), "\(forTarget.prefix(80))")
        let notForHost = try await Self.exchange(Self.click(target: "HTTP://other.test/p/42?x=1", hosts: ["go.pictlink.com"]))
        #expect(notForHost.hasPrefix("HTTP/1.1 404 ") && notForHost.contains("other.test"), "\(notForHost.prefix(80))")
        // Userinfo (or no host) is no authority to answer for.
        let userinfo = try await Self.exchange(Self.click(target: "http://user@go.pictlink.com/p/42", hosts: ["go.pictlink.com"]))
        #expect(userinfo.hasPrefix("HTTP/1.1 400 "), "\(userinfo.prefix(80))")
        // Another scheme's target names another host too: refused, not answered for the Host line (it was: 302).
        let otherForms = [
            Self.click(target: "ftp://other.test/p/42", hosts: ["go.pictlink.com"]),
            Self.click(target: "FTP://go.pictlink.com/p/42", hosts: ["go.pictlink.com"]),
        ]
        for head in otherForms {
            let otherForm = try await Self.exchange(head)
            #expect(otherForm.hasPrefix("HTTP/1.1 400 ") && otherForm.contains("request targets"), "\(head.prefix(40)): \(otherForm.prefix(80))")
        }
        // CONNECT's authority-form too (NIO sends no body in an answer to CONNECT; it was 404).
        let connect = try await Self.exchange("CONNECT other.test:443 HTTP/1.1\r\nHost: go.pictlink.com\r\n\r\n")
        #expect(connect.hasPrefix("HTTP/1.1 400 "), "\(connect.prefix(80))")
        // A trusted proxy's forwarded host still names the host.
        let proxied = try await Self.exchange(
            Self.click(target: "http://other.test/p/42", hosts: ["other.test"], extra: "X-Forwarded-Host: go.pictlink.com\r\n"),
            policy: .defaultTrusting)
        #expect(proxied.hasPrefix("HTTP/1.1 302 "), "\(proxied.prefix(80))")
    }

    @Test func verdicts() {
        func verdict(_ uri: String, _ hosts: [String], version: HTTPVersion = .http1_1, _ extra: [(String, String)] = []) -> RequestHeadCheck.Verdict
        {
            RequestHeadCheck.verdict(
                HTTPRequestHead(
                    version: version, method: .GET, uri: uri, headers: HTTPHeaders(hosts.map { ("Host", $0) } + [("Accept", "*/*")] + extra)))
        }
        func isRefused(_ verdict: RequestHeadCheck.Verdict) -> Bool {
            if case .refuse = verdict { return true }
            return false
        }
        #expect(verdict("/x", ["a.example"]) == .pass)
        #expect(verdict("/x", ["a.example:8080"]) == .pass)
        #expect(verdict("*", ["a.example"]) == .pass)
        #expect(verdict("/x", ["a.example"], [("Connection", "close")]) == .pass)
        #expect(verdict("/x", ["a.example"], [("Transfer-Encoding", "gzip, chunked")]) == .pass)
        #expect(
            verdict("https://b.example:8443/x?y", ["a.example"]) == .amend(.init(authority: "b.example:8443", target: "/x?y")))
        #expect(verdict("http://[2001:db8::1]", ["a.example"]) == .amend(.init(authority: "[2001:db8::1]", target: "/")))
        #expect(verdict("http://b.example?q", ["a.example"]) == .amend(.init(authority: "b.example", target: "/?q")))
        // Whitespace around the Host value is not part of it (RFC 9110, section 5.5): passed on without it.
        #expect(verdict("/x", ["a.example \t"]) == .amend(.init(authority: "a.example")))
        #expect(verdict("/x", ["a.example "], [("Connection", "Close")]) == .amend(.init(authority: "a.example", close: true)))
        // The connection ends after this request: `Connection: close` alone says so to what reads it after this.
        #expect(verdict("/x", ["a.example"], [("Connection", "Close")]) == .amend(.init(close: true)))
        #expect(verdict("/x", ["a.example"], [("Connection", "keep-alive, close")]) == .amend(.init(close: true)))
        #expect(verdict("/x", ["a.example"], version: .http1_0) == .amend(.init(close: true)))
        #expect(verdict("/x", [], version: .http1_0) == .amend(.init(close: true)))
        #expect(verdict("/x", ["a.example"], version: .http1_0, [("Connection", "Keep-Alive")]) == .pass)
        let refused: [(String, RequestHeadCheck.Verdict)] = [
            ("another scheme", verdict("ftp://b.example/x", ["a.example"])),
            ("two Host lines", verdict("/x", ["a.example", "A.example"])),
            ("no Host line in HTTP/1.1", verdict("/x", [])),
            ("no Host line with an absolute-form target", verdict("http://b.example/x", [])),
            ("an empty Host", verdict("/x", [""])),
            ("userinfo in Host", verdict("/x", ["u@a.example"])),
            ("a space in Host", verdict("/x", ["a b"])),
            ("a port that is not a number", verdict("/x", ["a.example:abc"])),
            ("a port past 65535", verdict("/x", ["a.example:99999"])),
            ("non-ASCII in Host", verdict("/x", ["go.pictlin\u{212A}.com"])),
            ("an empty authority", verdict("http:///x", ["a.example"])),
            ("a space in the authority", verdict("http://a b/x", ["a.example"])),
            ("a port past 65535 in the authority", verdict("http://a.example:99999/x", ["a.example"])),
            ("a last transfer coding other than chunked", verdict("/x", ["a.example"], [("Transfer-Encoding", "identity")])),
            ("chunked then gzip", verdict("/x", ["a.example"], [("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "gzip")])),
            ("a transfer coding in HTTP/1.0", verdict("/x", ["a.example"], version: .http1_0, [("Transfer-Encoding", "chunked")])),
            // No coding at all, or one NIO's parser does not read as chunked, leaves the framing unknown as well.
            ("an empty transfer coding list", verdict("/x", ["a.example"], [("Transfer-Encoding", ",")])),
            ("an empty Transfer-Encoding", verdict("/x", ["a.example"], [("Transfer-Encoding", "")])),
            ("chunked then an empty line", verdict("/x", ["a.example"], [("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "")])),
            ("chunked with a tab", verdict("/x", ["a.example"], [("Transfer-Encoding", "chunked\t")])),
        ]
        for (what, verdict) in refused { #expect(isRefused(verdict), "\(what)") }
        // HOST in another case is the same field.
        let mixed = HTTPHeaders([("host", "a.example"), ("HOST", "b.example")])
        #expect(isRefused(RequestHeadCheck.verdict(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/x", headers: mixed))))
    }

    /// What RFC 9112 refuses is refused before anything answers or counts it: a framing Relink cannot know (it was
    /// answered as a click, then refused), and a Host that is not a host (it was answered for the host it resembled).
    @Test func unknownFramingsAndInvalidHostsAreRefusedUnanswered() async throws {
        let heads = [
            "GET /p/42 HTTP/1.1\r\nHost: go.pictlink.com\r\nTransfer-Encoding: identity\r\nConnection: close\r\n\r\n",
            "GET /p/42 HTTP/1.0\r\nHost: go.pictlink.com\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            "GET /p/42 HTTP/1.1\r\nHost: go.pictlin\u{212A}.com\r\nConnection: close\r\n\r\n",
            "GET /p/42 HTTP/1.1\r\nHost: go.pictlink.com:abc\r\nConnection: close\r\n\r\n",
            "GET /p/42 HTTP/1.1\r\nConnection: close\r\n\r\n",
        ]
        for head in heads {
            let answer = try await Self.exchange(head)
            #expect(answer.hasPrefix("HTTP/1.1 400 "), "\(head.prefix(60)): \(answer.prefix(80))")
            #expect(!answer.contains("302"), "\(head.prefix(60)): \(answer.prefix(200))")
        }
    }

    /// A request after which the connection ends is answered, then the connection closed: HTTP/1.0 without
    /// keep-alive, and `close` in any case or list (they were kept open until the idle timeout).
    @Test func theConnectionEndsWhenTheRequestSaysSo() async throws {
        let heads = [
            "GET /healthz HTTP/1.0\r\n\r\n",
            "GET /p/42 HTTP/1.0\r\nHost: go.pictlink.com\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: Close\r\n\r\n",
            "GET /p/42 HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: keep-alive, close\r\n\r\n",
        ]
        let app = try buildApplication(
            configuration: ServerConfiguration(port: 0, relink: T.configuration, logLevel: .error, store: try SQLiteStore()))
        try await app.test(.live) { client in
            let port = try #require(client.port)
            for head in heads {
                let (answer, closed) = try await offThePool { try Self.exchangeLeavingOpen(head, port: port) }
                #expect(answer.hasPrefix("HTTP/1.1 200 ") || answer.hasPrefix("HTTP/1.1 302 "), "\(head.prefix(60)): \(answer.prefix(80))")
                #expect(closed, "\(head.prefix(60)): still open")
            }
        }
    }

    /// Sends `head` without closing the sending side, and reads until the server closes or 10 s pass.
    static func exchangeLeavingOpen(_ head: String, port: Int) throws -> (answer: String, closed: Bool) {
        let descriptor = try LoopbackSocket.connected(port: port)
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let data = Array(head.utf8)
        guard send(descriptor, data, data.count, 0) == data.count else { throw POSIXError(.EIO) }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count == 0 { return (String(decoding: answer, as: UTF8.self), true) }
            if count < 0 { return (String(decoding: answer, as: UTF8.self), false) }
            answer += buffer[0..<count]
        }
    }
}
