import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOHTTP1
import RelinkStore
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
        func verdict(_ uri: String, _ hosts: [String]) -> RequestHeadCheck.Verdict {
            RequestHeadCheck.verdict(uri: uri, headers: HTTPHeaders(hosts.map { ("Host", $0) } + [("Accept", "*/*")]))
        }
        #expect(verdict("/x", ["a.example"]) == .pass)
        #expect(verdict("/x", []) == .pass)
        #expect(verdict("*", ["a.example"]) == .pass)
        #expect(verdict("https://b.example:8443/x?y", ["a.example"]) == .authority("b.example:8443"))
        #expect(verdict("http://[2001:db8::1]", []) == .authority("[2001:db8::1]"))
        guard case .refuse = verdict("ftp://b.example/x", ["a.example"]) else {
            Issue.record("another scheme")
            return
        }
        guard case .refuse = verdict("/x", ["a.example", "A.example"]) else {
            Issue.record("two Host lines")
            return
        }
        guard case .refuse = verdict("http:///x", ["a.example"]) else {
            Issue.record("an empty authority")
            return
        }
        guard case .refuse = verdict("http://a b/x", ["a.example"]) else {
            Issue.record("a space")
            return
        }
        // HOST in another case is the same field.
        let mixed = RequestHeadCheck.verdict(uri: "/x", headers: HTTPHeaders([("host", "a.example"), ("HOST", "b.example")]))
        guard case .refuse = mixed else {
            Issue.record("Host in any case")
            return
        }
    }
}
