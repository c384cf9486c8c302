import HTTPTypes
import Logging
import NIOCore
import NIOHTTPTypes

/// The lean path for clicks: sits after Hummingbird's connection state handler (so idle timeouts, graceful shutdown
/// and everything nearer the socket see its requests and answers: the head check, the header, body and send
/// timeouts, the connection limit) and answers a click that needs no waiting (its link in memory, or read at once
/// from SQLite) right here, on the event loop, without the router's task, middleware chain and response writer.
/// Anything else goes on to the router unchanged.
/// Answers keep the requests' order (`LeanClickStateMachine`).
final class LeanClickHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let responder: LeanClickResponder
    private let logger: Logger
    private var state = LeanClickStateMachine()
    private var flushScheduled = false

    init(responder: LeanClickResponder, logger: Logger) {
        self.responder = responder
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            // While earlier answers wait for a client that does not read them, the router takes the request: its
            // writer waits and it stops reading, where answers written here would pile up until the send timeout.
            switch state.head(eligible: Self.isEligible(head) && context.channel.isWritable) {
            case .drop:
                return
            case .forward:
                context.fireChannelRead(data)
            case .tryAnswer:
                guard let answer = responder.respond(to: head, channel: context.channel, logger: logger) else {
                    state.declined()
                    context.fireChannelRead(data)
                    return
                }
                // As Hummingbird's channel handler: a request saying exactly `Connection: close` ends the connection
                // after its answer (its output is closed; anything after it is not read).
                let closing = head.headerFields[.connection] == "close"
                state.answered(closing: closing)
                context.write(wrapOutboundOut(.head(answer.head)), promise: nil)
                if let body = answer.body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
                context.write(wrapOutboundOut(.end(nil)), promise: nil)
                if closing {
                    context.flush()
                    context.close(mode: .output, promise: nil)
                } else {
                    flushAfterThisRound(context)
                }
            }
        case .body:
            if state.part(isEnd: false) == .forward { context.fireChannelRead(data) }
        case .end:
            if state.part(isEnd: true) == .forward { context.fireChannelRead(data) }
        }
    }

    /// Flushes once the event loop has read what is ready on every connection, as the router's answers are written
    /// (from tasks the loop runs after its reads): an answer flushed at once, in the middle of the loop's reads,
    /// woke the client right away, and each wake-up cost the loop its core (docs/performance.md#the-lean-path).
    private func flushAfterThisRound(_ context: ChannelHandlerContext) {
        guard !flushScheduled else { return }
        flushScheduled = true
        context.eventLoop.assumeIsolated().execute {
            self.flushScheduled = false
            context.flush()
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { state.routerFinishedAnswer() }
        context.write(data, promise: promise)
    }

    /// A GET or HEAD without a body: a click, when its link is in memory.
    static func isEligible(_ head: HTTPRequest) -> Bool {
        (head.method == .get || head.method == .head) && head.headerFields[.contentLength] == nil
            && head.headerFields[.transferEncoding] == nil
    }
}
