import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RelinkCore

/// Fetches a page whose URL a client chose (a short link's destination), as a guarded server-side request:
/// http(s) only, every URL (the first and each redirect's) checked by the caller's rule (the project's allowlist),
/// every address the host resolves to checked by `OutboundAddressPolicy`, and the connection made to the address
/// that was checked (never resolved again, so DNS rebinding gets nowhere); at most `maximumRedirects` redirects,
/// `timeout` for the whole fetch, `maximumBytes` read, HTML only. Nothing is decompressed.
public struct SafeFetcher: Sendable {
    public struct Page: Sendable {
        /// The URL the page came from, after redirects.
        public var url: String
        public var contentType: String
        public var body: ByteBuffer
        /// The page was longer than `maximumBytes`; `body` is its beginning.
        public var truncated: Bool
    }

    public enum FetchError: Error, Equatable, CustomStringConvertible {
        case badURL(String)
        case notAllowed(String)
        case refusedAddress(String)
        case noAddress(String)
        case tooManyRedirects(Int)
        case timedOut
        case status(UInt)
        case notHTML(String)
        case failed(String)

        public var description: String {
            switch self {
            case .badURL(let url): "'\(url.leadingScalars(200))' is not an http(s) URL without user information"
            case .notAllowed(let reason): reason
            case .refusedAddress(let reason): "refused to connect: \(reason)"
            case .noAddress(let host): "\(host.leadingScalars(200)) has no address"
            case .tooManyRedirects(let limit): "more than \(limit) redirects"
            case .timedOut: "no complete answer in time"
            case .status(let code): "the page answered HTTP \(code)"
            case .notHTML(let type): "the page is \(type.leadingScalars(100)), not HTML"
            case .failed(let reason): reason
            }
        }
    }

    public var policy: OutboundAddressPolicy
    public var resolver: any HostResolver
    public var maximumRedirects = 3
    public var timeout: Duration = .seconds(2)
    public var maximumBytes = 1 << 20
    public var userAgent = "RelinkPreview/1.0 (link preview; +https://github.com/relink)"

    public init(policy: OutboundAddressPolicy = OutboundAddressPolicy(), resolver: any HostResolver = SystemHostResolver()) {
        self.policy = policy
        self.resolver = resolver
    }

    /// Fetches the HTML page at `url`.
    /// - Parameters:
    ///   - url: the first URL.
    ///   - check: why a URL (the first or a redirect's) may not be fetched, or nil when it may.
    /// - Returns: the page.
    /// - Throws: `FetchError`.
    public func fetchHTML(_ url: String, check: @Sendable (String) -> String?) async throws(FetchError) -> Page {
        let deadline = NIODeadline.now() + TimeAmount(timeout)
        var current = url
        var redirects = 0
        while true {
            // The allowlist reads the URL as written; a server may read `/ok/../admin` or `/ok/%2e%2e/admin` as
            // `/admin`. Such a path is refused rather than guessed at.
            if Self.hasDotSegments(current) { throw .notAllowed("'\(current.leadingScalars(200))' has . or .. path segments") }
            if let reason = check(current) { throw .notAllowed(reason) }
            let target = try await connectTarget(current)
            switch try await fetchOnce(target, deadline: deadline) {
            case .page(let page):
                return page
            case .redirect(let location):
                redirects += 1
                guard redirects <= maximumRedirects else { throw .tooManyRedirects(maximumRedirects) }
                current = location
            }
        }
    }

    /// POSTs `body` to `url` (a webhook), following no redirect: the receiver's HTTP status.
    /// - Throws: `FetchError` when the URL or its addresses are refused, or nothing answered in time.
    public func post(_ url: String, body: [UInt8], headers: [(String, String)]) async throws(FetchError) -> UInt {
        let target = try await connectTarget(url)
        return try await exchange(with: target) { client, deadline in
            var request = HTTPClientRequest(url: target.url)
            request.method = .POST
            request.headers.add(name: "User-Agent", value: "Relink-Webhooks/1.0")
            request.headers.add(name: "Content-Type", value: "application/json")
            for (name, value) in headers { request.headers.add(name: name, value: value) }
            request.body = .bytes(body)
            let response = try await client.execute(request, deadline: deadline)
            // The answer's body is not read beyond 64 KB: only its status counts.
            var read = 0
            for try await part in response.body {
                read += part.readableBytes
                if read > 65_536 { break }
            }
            return response.status.code
        }
    }

    /// Runs `body` with a client of its own for `target`: connected to the checked address (TLS still checks the
    /// name), no redirect followed, nothing decompressed, no connection retried, done by `deadline` (default:
    /// `timeout` from now). Errors come out as `FetchError`.
    func exchange<T: Sendable>(
        with target: Target, deadline: NIODeadline? = nil, onePerHost: Bool = false,
        _ body: @escaping @Sendable (HTTPClient, NIODeadline) async throws -> T
    ) async throws(FetchError) -> T {
        let deadline = deadline ?? NIODeadline.now() + TimeAmount(timeout)
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: TimeAmount(timeout), read: TimeAmount(timeout))
        configuration.decompression = .disabled
        if IPAddress(target.host) == nil { configuration.dnsOverride = [target.host: target.address] }
        if onePerHost { configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1 }
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let result: Result<T, FetchError>
        do {
            result = .success(try await withDeadline(deadline) { try await body(client, deadline) })
        } catch is DeadlineExceeded {
            result = .failure(.timedOut)
        } catch let error as FetchError {
            result = .failure(error)
        } catch {
            result = .failure(Self.describe(error))
        }
        try? await client.shutdown()
        return try result.get()
    }

    /// Whether the URL's path has a `.` or `..` segment, written plainly or percent-encoded (`%2e`, with `%2f` or
    /// `\` as separators).
    static func hasDotSegments(_ url: String) -> Bool {
        guard let components = URLComponents(string: url) else { return false }
        let path = components.percentEncodedPath.lowercased()
            .replacingOccurrences(of: "%2e", with: ".").replacingOccurrences(of: "%2f", with: "/")
            .replacingOccurrences(of: "%5c", with: "/").replacingOccurrences(of: "\\", with: "/")
        return path.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
    }

    /// A URL made ready to connect: its host lowercased, and the checked address to connect to.
    struct Target {
        var url: String
        var host: String
        var address: String
    }

    func connectTarget(_ url: String) async throws(FetchError) -> Target {
        guard var components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
            components.user == nil, components.password == nil, var host = components.host, !host.isEmpty
        else { throw .badURL(url) }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        host = host.lowercased()
        components.scheme = scheme
        components.fragment = nil
        let literal = IPAddress(host)
        if literal == nil { components.host = host }
        guard let rebuilt = components.string else { throw .badURL(url) }
        let addresses: [String]
        if literal != nil {
            addresses = [host]
        } else {
            do {
                addresses = try await resolver.addresses(of: host)
            } catch {
                throw .noAddress(host)
            }
        }
        guard !addresses.isEmpty else { throw .noAddress(host) }
        // Every address, not only the one used: a name that points anywhere private is refused as a whole.
        for text in addresses {
            guard let address = IPAddress(text) else { throw .refusedAddress("'\(text)' is not an IP address") }
            if let reason = policy.refusal(address) { throw .refusedAddress("\(host) resolves to \(reason)") }
        }
        return Target(url: rebuilt, host: host, address: addresses[0])
    }

    enum Answer {
        case page(Page)
        case redirect(String)
    }

    func fetchOnce(_ target: Target, deadline: NIODeadline) async throws(FetchError) -> Answer {
        try await exchange(with: target, deadline: deadline, onePerHost: true) { client, deadline in
            try await self.exchange(client, target, deadline: deadline)
        }
    }

    private func exchange(_ client: HTTPClient, _ target: Target, deadline: NIODeadline) async throws -> Answer {
        var request = HTTPClientRequest(url: target.url)
        request.headers.add(name: "User-Agent", value: userAgent)
        request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml;q=0.9")
        request.headers.add(name: "Accept-Encoding", value: "identity")
        let response = try await client.execute(request, deadline: deadline)
        let status = response.status.code
        if [301, 302, 303, 307, 308].contains(status) {
            guard let location = response.headers.first(name: "Location"),
                let resolved = URL(string: location, relativeTo: URL(string: target.url))?.absoluteString
            else { throw FetchError.failed("a redirect (HTTP \(status)) without a usable Location") }
            return .redirect(resolved)
        }
        guard status == 200 else { throw FetchError.status(status) }
        let contentType = response.headers.first(name: "Content-Type") ?? ""
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "text/html" || mediaType == "application/xhtml+xml" else {
            throw FetchError.notHTML(mediaType.isEmpty ? "without a content type" : mediaType)
        }
        var body = ByteBuffer()
        var truncated = false
        for try await var part in response.body {
            let room = maximumBytes - body.readableBytes
            if part.readableBytes > room {
                if room > 0, let slice = part.readSlice(length: room) {
                    var slice = slice
                    body.writeBuffer(&slice)
                }
                truncated = true
                break
            }
            body.writeBuffer(&part)
        }
        return .page(Page(url: target.url, contentType: contentType, body: body, truncated: truncated))
    }

    static func describe(_ error: any Error) -> FetchError {
        if let error = error as? HTTPClientError {
            if error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout { return .timedOut }
            return .failed("the page could not be fetched: \(error)")
        }
        return .failed("the page could not be fetched: \(error)")
    }
}
