import HTTPTypes
import Hummingbird
import NIOCore

/// What a click is answered with, before the headers every response gets (`X-Request-Id`, `Date`, `Server`): made
/// by `RedirectController` alone, and sent by the router or by the lean path (`LeanClickHandler`) alike.
struct ClickAnswer: Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields
    /// The body; nil for none (a redirect).
    var body: ByteBuffer?

    init(status: HTTPResponse.Status, headers: HTTPFields, body: ByteBuffer? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// As the router sends it: `Content-Length` added after the answer's own headers.
    var response: Response {
        Response(status: status, headers: headers, body: body.map { ResponseBody(byteBuffer: $0) } ?? ResponseBody())
    }
}
