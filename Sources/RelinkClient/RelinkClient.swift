import Foundation
import RelinkAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Relink REST API from Swift: what the `relink` CLI uses, and what apps embed. URLSession only, so it
/// builds for iOS and Linux alike.
public struct RelinkClient: Sendable {
    /// The Relink server, such as `https://go.example.com` (its API lives under `/v1`).
    public var server: URL
    /// An API key from `relink keys create`; minting and management need one.
    public var apiKey: String?
    /// The session whose configuration requests are sent with (each on a session of its own, see `sendForData`).
    public var session: URLSession
    /// How long one request may take in all, its answer included.
    public var timeout: TimeInterval
    /// The largest answer read; past it the request fails (the biggest answer, a page of 1,000 links, is far smaller).
    public static let maxAnswerBytes = 16 << 20

    /// A client of one Relink server.
    /// - Parameters:
    ///   - server: the server's base URL, such as `https://go.example.com`.
    ///   - apiKey: a key from `relink keys create`, for minting and managing links; claims and re-opens need none.
    ///   - session: the session whose configuration requests are sent with.
    ///   - timeout: how long one request may take in all, 30 seconds unless given.
    public init(server: URL, apiKey: String? = nil, session: URLSession = .shared, timeout: TimeInterval = 30) {
        self.server = server
        self.apiKey = apiKey
        self.session = session
        self.timeout = timeout
    }

    // MARK: Short links

    /// `POST /v1/shortLinks`: mints a short link, FDL's request as it is.
    /// - Parameter request: a long link or its parts (`dynamicLinkInfo`), and the suffix wanted.
    /// - Returns: the short link, its preview (`?d=1`) link, and warnings about the long link.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func createShortLink(_ request: CreateShortLinkRequest) async throws(RelinkClientError) -> CreateShortLinkResponse {
        try await send("POST", path: APIPath.absolute(APIPath.shortLinks), body: request)
    }

    /// Mints a short link for a long link.
    /// - Parameters:
    ///   - longDynamicLink: the long link, on one of the project's domains.
    ///   - suffix: `.unguessable` (17 characters), `.short` (4 or more) or `.custom` (with `customSuffix`).
    ///   - customSuffix: the code wanted, with `.custom`.
    /// - Returns: the short link, its preview link and warnings.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func createShortLink(
        longDynamicLink: String, suffix: SuffixOption = .unguessable, customSuffix: String? = nil
    )
        async throws(RelinkClientError) -> CreateShortLinkResponse
    {
        try await createShortLink(
            CreateShortLinkRequest(
                longDynamicLink: longDynamicLink, suffix: .init(option: suffix.rawValue, customSuffix: customSuffix)))
    }

    /// `GET /v1/{shortLink}/linkStats`: a short link's event counts.
    /// - Parameters:
    ///   - shortLink: the short link, such as `https://go.example.com/spring`.
    ///   - durationDays: how many days, up to today, to count.
    ///   - includeCrawlers: also list link-preview crawler visits (platform `CRAWLER`).
    /// - Returns: FDL's counts per platform and event.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func linkStats(
        shortLink: String, durationDays: Int, includeCrawlers: Bool = false
    ) async throws(RelinkClientError)
        -> LinkStatsResponse
    {
        var query = [URLQueryItem(name: "durationDays", value: String(durationDays))]
        if includeCrawlers { query.append(URLQueryItem(name: "includeCrawlers", value: "true")) }
        return try await send("GET", path: APIPath.absolute("\(Self.pathSegment(shortLink))/\(APIPath.linkStats)"), query: query)
    }

    /// `GET /v1/{shortLink}/deferredClicks`: the short link's clicks kept for deferred linking, newest first, and
    /// their claims.
    /// - Parameters:
    ///   - shortLink: the short link.
    ///   - limit: how many of the newest, 1 to 100 (the server's default is 20).
    /// - Returns: the clicks, without ids or addresses.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func deferredClicks(shortLink: String, limit: Int? = nil) async throws(RelinkClientError) -> DeferredClicksResponse {
        let query = limit.map { [URLQueryItem(name: "limit", value: String($0))] } ?? []
        return try await send("GET", path: APIPath.absolute("\(Self.pathSegment(shortLink))/\(APIPath.deferredClicks)"), query: query)
    }

    /// `GET /v1/links`: one page of the key's project's links, newest first.
    /// - Parameters:
    ///   - pageSize: links per page, 1 to 1,000 (the server's default is 100).
    ///   - pageToken: `nextPageToken` of the previous page.
    /// - Returns: the links and, when more follow, the next page's token.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func links(pageSize: Int? = nil, pageToken: String? = nil) async throws(RelinkClientError) -> LinkListResponse {
        var query: [URLQueryItem] = []
        if let pageSize { query.append(URLQueryItem(name: "pageSize", value: String(pageSize))) }
        if let pageToken { query.append(URLQueryItem(name: "pageToken", value: pageToken)) }
        return try await send("GET", path: APIPath.absolute(APIPath.links), query: query)
    }

    /// `GET /v1/links/{shortLink}`: one short link of the key's project.
    /// - Parameter shortLink: the short link.
    /// - Returns: the link, its destination and state.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func link(_ shortLink: String) async throws(RelinkClientError) -> ManagedLink {
        try await send("GET", path: APIPath.absolute("\(APIPath.links)/\(Self.pathSegment(shortLink))"))
    }

    /// `PATCH /v1/links/{shortLink}`: changes a short link; the next click sees the change.
    /// - Parameters:
    ///   - shortLink: the short link.
    ///   - update: a new long link, `disabled`, or `expireTime` (`""` removes it).
    /// - Returns: the link as saved.
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func updateLink(_ shortLink: String, _ update: UpdateLinkRequest) async throws(RelinkClientError) -> ManagedLink {
        try await send("PATCH", path: APIPath.absolute("\(APIPath.links)/\(Self.pathSegment(shortLink))"), body: update)
    }

    /// `POST /v1/links/{shortLink}/refreshPreview`: fetches the link's destination page now and stores its card.
    /// - Parameter shortLink: the short link.
    /// - Returns: the link with its new card (`preview.failure` says why the page gave none).
    /// - Throws: `RelinkClientError` with the HTTP status and Google's error status when the server refuses, or
    ///   without a status when the server could not be reached or answered something else.
    public func refreshPreview(_ shortLink: String) async throws(RelinkClientError) -> ManagedLink {
        try await send("POST", path: APIPath.absolute("\(APIPath.links)/\(Self.pathSegment(shortLink))/refreshPreview"))
    }

    // MARK: Webhooks

    /// `GET /v1/webhooks`: the key's project's webhooks (without their secrets).
    public func webhooks() async throws(RelinkClientError) -> WebhookListResponse {
        try await send("GET", path: APIPath.absolute(APIPath.webhooks))
    }

    /// `POST /v1/webhooks`: subscribes `url` to `events` (all when nil); the answer carries the signing secret, once.
    public func addWebhook(url: String, events: [String]? = nil) async throws(RelinkClientError) -> WebhookInfo {
        try await send("POST", path: APIPath.absolute(APIPath.webhooks), body: CreateWebhookRequest(url: url, events: events))
    }

    /// `DELETE /v1/webhooks/{id}`.
    public func removeWebhook(id: String) async throws(RelinkClientError) -> WebhookInfo {
        try await send("DELETE", path: APIPath.absolute("\(APIPath.webhooks)/\(Self.pathSegment(id))"))
    }

    /// `POST /v1/webhooks/{id}/test`: queues a `webhook.test` event; its delivery id.
    public func testWebhook(id: String) async throws(RelinkClientError) -> String {
        struct Answer: Decodable { var deliveryId: String }
        let answer: Answer = try await send("POST", path: APIPath.absolute("\(APIPath.webhooks)/\(Self.pathSegment(id))/test"))
        return answer.deliveryId
    }

    /// `GET /v1/webhooks/{id}/deliveries`: the latest deliveries, newest first, with their status.
    public func webhookDeliveries(id: String, limit: Int? = nil) async throws(RelinkClientError) -> WebhookDeliveriesResponse {
        try await send(
            "GET", path: APIPath.absolute("\(APIPath.webhooks)/\(Self.pathSegment(id))/deliveries"),
            query: limit.map { [URLQueryItem(name: "limit", value: String($0))] } ?? [])
    }

    // MARK: Transport

    /// A short link as one path segment: every reserved character encoded, `/` included.
    static func pathSegment(_ text: String) -> String {
        PercentEncoding.encodeQueryValue(text)
    }

    private struct NoBody: Encodable {}

    func send<Response: Decodable>(
        _ method: String, path: String, query: [URLQueryItem] = []
    ) async throws(RelinkClientError)
        -> Response
    {
        try await send(method, path: path, query: query, body: Optional<NoBody>.none)
    }

    func send<Body: Encodable, Response: Decodable>(
        _ method: String, path: String, query: [URLQueryItem] = [], body: Body?
    ) async throws(RelinkClientError) -> Response {
        let data = try await sendForData(method, path: path, query: query, body: body)
        if let problem = JSONShape.problem(data) ?? JSONNumberRange.problem(data) {
            throw RelinkClientError(status: nil, apiStatus: nil, message: "the server's answer is not the JSON expected: \(problem)")
        }
        do {
            return try JSONDecoder().decode(Response.self, from: data)
        } catch {
            throw RelinkClientError(status: nil, apiStatus: nil, message: "the server's answer is not the JSON expected: \(error)")
        }
    }

    func sendForData<Body: Encodable>(
        _ method: String, path: String, query: [URLQueryItem], body: Body?
    ) async throws(RelinkClientError)
        -> Data
    {
        // The path is already encoded; appending it as text keeps its %2F inside one segment.
        guard var components = URLComponents(string: server.absoluteString.trimmingTrailingSlash + path) else {
            throw RelinkClientError(status: nil, apiStatus: nil, message: "'\(server)' is not a server URL")
        }
        if !query.isEmpty { components.queryItems = query }
        guard let url = components.url else {
            throw RelinkClientError(status: nil, apiStatus: nil, message: "cannot build a URL from '\(server)' and '\(path)'")
        }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        // Uncompressed: an answer's size is then what is read (RelinkExchange refuses a compressed one).
        request.setValue("identity", forHTTPHeaderField: "Accept-Encoding")
        if let apiKey { request.setValue("Bearer \(apiKey)", forHTTPHeaderField: "Authorization") }
        if let body {
            do {
                try request.setJSONBody(body)
            } catch {
                throw RelinkClientError(status: nil, apiStatus: nil, message: "cannot encode the request: \(error)")
            }
        }
        // As the app's transport sends its calls: the whole exchange within the timeout, the answer capped, and a
        // redirect answered as itself, so the key and the body never go to another server.
        let status: Int
        let data: Data
        switch await RelinkExchange.run(
            request, configuration: session.configuration, server: server.absoluteString, timeout: timeout, maxBytes: Self.maxAnswerBytes,
            refusesEncodedAnswers: true)
        {
        case .success(let (code, _, body)): (status, data) = (code, body)
        case .failure(let error): throw RelinkClientError(status: nil, apiStatus: nil, message: error.message)
        }
        guard (200..<300).contains(status) else {
            if JSONShape.problem(data) == nil, JSONNumberRange.problem(data) == nil,
                let body = try? JSONDecoder().decode(APIErrorBody.self, from: data)
            {
                throw RelinkClientError(status: status, apiStatus: body.error.status, message: body.error.message)
            }
            if (300..<400).contains(status) {
                throw RelinkClientError(
                    status: status, apiStatus: nil,
                    message: "HTTP \(status) from \(url.absoluteString): a redirect, which is not followed (the key would go with it); "
                        + "give the server's own address")
            }
            throw RelinkClientError(
                status: status, apiStatus: nil, message: "HTTP \(status) from \(url.absoluteString) (is this a Relink server?)")
        }
        return data
    }
}

extension String {
    fileprivate var trimmingTrailingSlash: String { hasSuffix("/") ? String(dropLast()) : self }
}
