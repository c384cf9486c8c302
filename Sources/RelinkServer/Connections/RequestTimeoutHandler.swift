import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is slow to send a request: the head must be complete within `headerTimeout` of
/// its first byte, the body within `bodyTimeout` of the head. A connection that sends nothing is the idle timeout's
/// (Hummingbird's, which counts whole requests and so cannot tell an idle client from one trickling a byte at a
/// time). Bytes are noticed by `RequestByteObserver`, which this handler puts at the front of the pipeline.
final class RequestTimeoutHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    enum State {
        /// Between requests: nothing of the next one has arrived.
        case idle
        /// The first bytes of a request are in, its head is not.
        case readingHead
        case readingBody
        /// The request is in; its response is not out yet. Bytes arriving meanwhile belong to the next request.
        case responding(nextStarted: Bool)
    }

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var state = State.idle
    private var timer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(RequestByteObserver(owner: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        context.fireChannelInactive()
    }

    /// Raw bytes arrived (called by the observer, on the channel's event loop).
    func bytesArrived() {
        switch state {
        case .idle:
            state = .readingHead
            schedule(headerTimeout)
        case .responding:
            state = .responding(nextStarted: true)
        case .readingHead, .readingBody:
            break
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            state = .readingBody
            schedule(bodyTimeout)
        case .body:
            break
        case .end:
            cancelTimer()
            state = .responding(nextStarted: false)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), case .responding(let nextStarted) = state {
            if nextStarted {
                state = .readingHead
                schedule(headerTimeout)
            } else {
                state = .idle
            }
        }
        context.write(data, promise: promise)
    }

    private func schedule(_ timeout: TimeAmount) {
        cancelTimer()
        guard let context else { return }
        timer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: timeout) { [weak self] in
            guard let self, let context = self.context else { return }
            self.timer = nil
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }
}

/// Tells its `RequestTimeoutHandler` when bytes arrive, before the HTTP decoder has made anything of them.
final class RequestByteObserver: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private weak var owner: RequestTimeoutHandler?

    init(owner: RequestTimeoutHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner?.bytesArrived()
        context.fireChannelRead(data)
    }
}
