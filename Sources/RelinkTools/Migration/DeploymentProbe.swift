import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkServer
import RelinkStore

/// `relink verify --url`: asks a running deployment what it does with a click, as each kind of client, and reads
/// the answer as a `FirebaseRules.Outcome`. It follows nothing: a redirect is its `Location`, a page is what an
/// HTML parser finds on it (the preview page's Open button, a link-preview card's Open Graph tags).
///
/// Each request goes to the deployment's address with the link's own host in `Host`, so a deployment can be
/// checked before DNS points at it. With a key of the project, the clicks are marked (`Authorization: Bearer`) and
/// the deployment neither counts them nor keeps them for deferred linking; it says so in `Relink-Click`.
public struct DeploymentProbe: Sendable {
    /// The response header of a marked click the deployment did not count (the server's `MarkedClick`).
    public static let uncountedHeader = MarkedClick.responseHeader
    public static let uncountedValue = MarkedClick.uncounted
    static let uncountedHeaderName = HTTPField.Name(uncountedHeader)!
    /// At most this much of a page is read.
    public static let maximumPageBytes = 1 << 20

    public enum ProbeError: Error, CustomStringConvertible {
        case badURL(String)
        case unreachable(String, underlying: String)
        case counted(String)
        case refused(String, status: UInt, message: String)

        public var description: String {
            switch self {
            case .badURL(let reason): reason
            case .unreachable(let url, let underlying): "\(url) did not answer: \(underlying)"
            case .counted(let url):
                "\(url) counted a verification click: the key is not one it knows for this project, or the deployment is older than "
                    + "`relink verify --url`; stopped so that no more are counted"
            case .refused(let url, let status, let message): "\(url): the deployment refused the check (HTTP \(status)): \(message)"
            }
        }
    }

    let base: (scheme: String, host: String, port: Int)
    let apiKey: String?
    let client: HTTPClient
    let timeout: TimeAmount

    /// - Parameters:
    ///   - url: the deployment: scheme, host and port only (`https://go.example.com`, `http://127.0.0.1:8080`).
    ///   - apiKey: a key of the project, so the clicks are not counted; nil to click as anybody would.
    ///   - timeout: each request's deadline.
    /// Call `shutdown()` when done.
    public init(url: String, apiKey: String?, timeout: TimeAmount = .seconds(10)) throws(ProbeError) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty
        else { throw .badURL("--url must be an http(s) URL such as https://go.example.com, got '\(url)'") }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else {
            throw .badURL("--url takes a deployment's scheme, host and port only (each link's own path is added), got '\(url)'")
        }
        if let port = components.port, !(1...65535).contains(port) { throw .badURL("--url's port must be 1 to 65535, got \(port)") }
        // An IPv6 address comes back in its brackets on some platforms and without them on others.
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        base = (scheme, bare, components.port ?? (scheme == "https" ? 443 : 80))
        self.apiKey = apiKey
        self.timeout = timeout
        // A client of its own: redirects are answers here, never followed.
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 16
        // A connection (its TLS handshake too) gets no longer than a request.
        configuration.timeout.connect = timeout
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func shutdown() async throws { try await client.shutdown() }

    /// What the deployment answers to `client` clicking `record`'s short link.
    public func answer(_ record: ShortLinkRecord, client kind: FirebaseRules.Client) async throws -> FirebaseRules.Outcome {
        guard let prefix = try? DomainURIPrefix(record.domain) else {
            return .refused("'\(record.domain)' is not a domain URI prefix")
        }
        let hostAndPort = base.host.contains(":") ? "[\(base.host)]" : base.host
        let url = "\(base.scheme)://\(hostAndPort):\(base.port)\(prefix.path)/\(PercentEncoding.encodeForURL(record.code))"
        var request = HTTPClientRequest(url: url)
        // The link's own host, as a browser clicking it sends it.
        request.headers.add(name: "Host", value: prefix.port.map { "\(prefix.host):\($0)" } ?? prefix.host)
        request.headers.add(name: "User-Agent", value: kind.userAgent)
        request.headers.add(name: "Accept", value: "text/html,application/xhtml+xml;q=0.9,*/*;q=0.8")
        if let apiKey { request.headers.add(name: "Authorization", value: "Bearer \(apiKey)") }
        let response: HTTPClientResponse
        let body: ByteBuffer
        let deadline = NIODeadline.now() + timeout
        do {
            (response, body) = try await withDeadline(deadline) { [client, request] in
                let response = try await client.execute(request, deadline: deadline)
                return (response, try await Self.read(response.body, limit: Self.maximumPageBytes))
            }
        } catch let error where AppDoctor.timedOut(error) {
            throw ProbeError.unreachable(record.shortLink, underlying: "no complete answer in \(timeout.nanoseconds / 1_000_000_000) s")
        } catch {
            throw ProbeError.unreachable(record.shortLink, underlying: "\(error)")
        }
        // The key refused (401, 403) or the client limited (429): no answer about the link, so no point going on.
        if [401, 403, 429].contains(response.status.code) {
            throw ProbeError.refused(record.shortLink, status: response.status.code, message: Self.errorMessage(body))
        }
        // A link the deployment found answers 2xx, 3xx, 400 (an invalid link's click is counted too) or 410;
        // only 404 (no such link) and 5xx count nothing.
        let mayCount = (200..<400).contains(response.status.code) || [400, 410].contains(response.status.code)
        if apiKey != nil, mayCount, response.headers.first(name: Self.uncountedHeader) != Self.uncountedValue {
            throw ProbeError.counted(record.shortLink)
        }
        // Relative URLs as a browser clicking the link reads them: against the link, not the deployment's address.
        return Self.outcome(
            status: response.status.code, location: response.headers.first(name: "Location"),
            contentType: response.headers.first(name: "Content-Type"), body: body, requestURL: record.shortLink)
    }

    /// Reads an answer as an outcome: a redirect's `Location` (resolved against the request), the preview page's
    /// Open link, a link-preview card (an Open Graph title, description or image), anything else refused with the
    /// status and the page's title.
    static func outcome(
        status: UInt, location: String?, contentType: String?, body: ByteBuffer, requestURL: String
    )
        -> FirebaseRules.Outcome
    {
        if (300..<400).contains(status) {
            guard let location, let resolved = URL(string: location, relativeTo: URL(string: requestURL)) else {
                return .refused("HTTP \(status) without a Location")
            }
            return .redirect(printable(resolved.absoluteString))
        }
        let isHTML = contentType?.lowercased().hasPrefix("text/html") ?? false
        let page = isHTML ? try? HTMLDocument(parsing: body.readableBytesView, encoding: HTMLDocument.charset(ofContentType: contentType)) : nil
        if status == 200, let page {
            if let open = page.element("a", where: "id", is: "open")?.attribute("href") {
                let resolved = URL(string: open, relativeTo: URL(string: requestURL))?.absoluteString ?? open
                return .preview(open: printable(resolved))
            }
            let card = page.elements.contains {
                $0.name == "meta" && ["og:title", "og:description", "og:image"].contains($0.attribute("property") ?? "")
            }
            if card { return .socialCard }
        }
        let title = page?.title.map { ": \(printable($0))" } ?? ""
        return .refused("HTTP \(status)\(title)")
    }

    /// Text from the deployment as it may reach a terminal: control characters (escape sequences) shown as `?`,
    /// at most 300 characters.
    static func printable(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(300) {
            let unsafe = scalar.properties.generalCategory == .control || PagePreview.bidiControls.contains(scalar.value)
            scalars.append(unsafe ? "?" : scalar)
        }
        return String(scalars) + (text.unicodeScalars.count > 300 ? "…" : "")
    }

    /// The message of the API's JSON error body (`{"error": {"message": …}}`), else the start of the body.
    static func errorMessage(_ body: ByteBuffer) -> String {
        struct ErrorBody: Decodable {
            struct Detail: Decodable { var message: String }
            var error: Detail
        }
        if let decoded = try? JSONDecoder().decode(ErrorBody.self, from: Data(body.readableBytesView)) {
            return printable(decoded.error.message)
        }
        return printable(String(decoding: body.readableBytesView.prefix(200), as: UTF8.self))
    }

    /// At most `limit` bytes of a body; the rest is left unread (the connection is then closed, not reused).
    static func read(_ body: HTTPClientResponse.Body, limit: Int) async throws -> ByteBuffer {
        var buffer = ByteBuffer()
        for try await var part in body {
            let room = limit - buffer.readableBytes
            guard room > 0 else { break }
            if part.readableBytes > room { part = part.getSlice(at: part.readerIndex, length: room)! }
            buffer.writeBuffer(&part)
        }
        return buffer
    }
}
