import AsyncHTTPClient
import NIOCore
import NIOHTTP1
import RelinkCore

extension SafeFetcher {
    /// An upstream's answer, passed back to the client as it came: its status, the headers worth passing, and its
    /// body (at most `maximumBytes`).
    public struct ForwardedAnswer: Sendable {
        public var status: UInt
        public var headers: [(name: String, value: String)]
        public var body: ByteBuffer
    }

    /// Sends one request to `url` (an upstream fixed by configuration, with the client's path and query) as a proxy
    /// would: the same address checks as every fetch, connected to the checked address, no redirect followed (the
    /// client follows them), `timeout` for the whole exchange, an answer over `maximumBytes` refused.
    /// - Parameters:
    ///   - host: the `Host` header to send (the tracking domain, or the upstream's own).
    ///   - headers: the client's headers to pass on.
    public func forward(
        method: HTTPMethod, url: String, host: String, headers: [(name: String, value: String)], body: ByteBuffer?
    ) async throws(FetchError) -> ForwardedAnswer {
        let target = try await connectTarget(url)
        return try await exchange(with: target) { client, deadline in
            var request = HTTPClientRequest(url: target.url)
            request.method = method
            request.headers.add(name: "Host", value: host)
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            if let body { request.body = .bytes(body) }
            let response = try await client.execute(request, deadline: deadline)
            var answer = ByteBuffer()
            for try await var part in response.body {
                guard answer.readableBytes + part.readableBytes <= maximumBytes else {
                    throw FetchError.failed("the answer is larger than \(maximumBytes) bytes")
                }
                answer.writeBuffer(&part)
            }
            let passed = response.headers.filter { Self.answerHeaders.contains($0.name.lowercased()) }
            return ForwardedAnswer(status: response.status.code, headers: passed.map { ($0.name, $0.value) }, body: answer)
        }
    }

    /// What of an upstream's answer reaches the client: where it goes, what it is, how long it may be kept, and the
    /// cookies the service sets on its own (tracking) domain. Hop-by-hop and framing headers are the server's own.
    static let answerHeaders: Set<String> = [
        "location", "content-type", "content-encoding", "content-language", "cache-control", "expires", "last-modified", "etag",
        "set-cookie", "vary", "refresh", "link", "x-robots-tag",
    ]
}
