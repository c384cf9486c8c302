import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RelinkCore

/// The lean path's answer to a request head: the router's own middleware facts (`RequestObservingMiddleware.learn`)
/// and the redirect controller's own answer (`RedirectController.resolutionNow`, then `answer`), with the
/// headers the router and Hummingbird add after them, in the same order. Nil for anything else, which the router
/// answers.
struct LeanClickResponder: Sendable {
    let observer: RequestObservingMiddleware
    let redirects: RedirectController
    let serverName: String
    let dates = HTTPDateCache()
    /// Called for each request answered here (tests).
    var onAnswer: (@Sendable () -> Void)? = nil

    func respond(to head: HTTPRequest, channel: any Channel, logger: Logger) -> (head: HTTPResponse, body: ByteBuffer?)? {
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        guard Self.reachesTheRedirects(request.uri.path) else { return nil }
        // Whether it is a click answered without waiting, before the rest of the facts: the requests the router will
        // answer (on PostgreSQL, most are clicks on links not in memory) should cost little here.
        guard observer.kind(of: request) == nil else { return nil }
        let origin = RequestOrigin(request: request, remoteAddress: channel.remoteAddress, policy: observer.forwardedHeaders)
        guard let resolution = redirects.resolutionNow(request, host: origin.host) else { return nil }
        var logger = logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        var context = RelinkRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let (requestId, _) = observer.learn(request, context: &context, knownOrigin: origin)
        let answer = redirects.answer(resolution, request: request, context: context, uncounted: false, overLimit: false)
        let isHead = head.method == .head
        // As the router: the route's HEAD answer, then the middleware's request id, then Hummingbird's date and name.
        var response = isHead ? answer.response.createHeadResponse() : answer.response
        response.headers[RequestObservingMiddleware.requestIdHeader] = requestId
        response.headers[.date] = dates.now
        response.headers[.server] = serverName
        onAnswer?()
        return (response.head, isHead ? nil : answer.body)
    }

    /// Whether the router would hand `path` to the redirect controller: every other route starts with a reserved
    /// code, and the router skips empty segments (`//healthz` and `/healthz/` are the health route, `/healthz/x` no
    /// route), so a path whose first non-empty segment is reserved is the router's.
    static func reachesTheRedirects(_ path: String) -> Bool {
        let slash = UInt8(ascii: "/")
        guard let first = path.utf8.split(separator: slash, maxSplits: 1, omittingEmptySubsequences: true).first else { return true }
        return !reservedFirstSegments.contains { $0.elementsEqual(first) }
    }

    private static let reservedFirstSegments = RelinkPaths.reservedCodes.map { Array($0.utf8) }
}
