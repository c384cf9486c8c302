import HTTPTypes
import Hummingbird
import Logging
import NIOCore

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
}
