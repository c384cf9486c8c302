import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The lean path's answer to a request head: the router's own middleware facts (`RequestObservingMiddleware.learn`)
/// and the redirect controller's own answer (`RedirectController.answerFromMemory`), with the headers the router
/// and Hummingbird add after them, in the same order. Nil for anything else, which the router answers.
struct LeanClickResponder: Sendable {
    let observer: RequestObservingMiddleware
    let redirects: RedirectController
    let serverName: String
    let dates = HTTPDateCache()
    /// Called for each request answered here (tests).
    var onAnswer: (@Sendable () -> Void)? = nil

    func respond(to head: HTTPRequest, channel: any Channel, logger: Logger) -> (head: HTTPResponse, body: ByteBuffer?)? {
        var logger = logger
        logger[metadataKey: "hb.request.id"] = .stringConvertible(RequestID())
        let request = Request(head: head, body: RequestBody(buffer: ByteBuffer()))
        var context = RelinkRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
        let (requestId, kind) = observer.learn(request, context: &context)
        guard kind == nil, let answer = redirects.answerFromMemory(request, context) else { return nil }
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
