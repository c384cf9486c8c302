import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Closes a connection whose client is slow: the head must be complete within `headerTimeout` of its first byte,
/// the body within `bodyTimeout` of the head, and a response may not wait longer than `sendTimeout` for the client
/// to read (a client that pipelines requests and never reads would otherwise hold the connection and its buffers).
/// A connection that sends nothing is the idle timeout's (Hummingbird's, which counts whole requests and so cannot
/// tell an idle client from one trickling a byte at a time). Bytes are noticed by `RequestByteObserver`, which this
/// handler puts at the front of the pipeline.
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
        /// The head is in, the body is not. The response may be out already (an early answer, before the body):
        /// then bytes arriving after it may begin the next request.
        case readingBody(responded: Bool, nextStarted: Bool)
        /// The request is in; its response is not out yet. Bytes arriving meanwhile belong to the next request.
        case responding(nextStarted: Bool)
    }

    private let headerTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private let sendTimeout: TimeAmount
    private var state = State.idle
    private var timer: Scheduled<Void>?
    private var sendTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount, sendTimeout: TimeAmount = .seconds(10)) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.sendTimeout = sendTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        try? context.pipeline.syncOperations.addHandler(RequestByteObserver(owner: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelTimer()
        cancelSendTimer()
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelTimer()
        cancelSendTimer()
        context.fireChannelInactive()
    }

    /// Unwritable: responses are queued because the client does not read them. It has `sendTimeout` to start again.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancelSendTimer()
        } else if sendTimer == nil {
            sendTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: sendTimeout) { [weak self] in
                guard let self, let context = self.context else { return }
                self.sendTimer = nil
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Raw bytes arrived (called by the observer, on the channel's event loop).
    func bytesArrived() {
        switch state {
        case .idle:
            state = .readingHead
            schedule(headerTimeout)
        case .responding:
            state = .responding(nextStarted: true)
        case .readingBody(responded: true, _):
            state = .readingBody(responded: true, nextStarted: true)
        case .readingHead, .readingBody:
            break
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            state = .readingBody(responded: false, nextStarted: false)
            schedule(bodyTimeout)
        case .body:
            break
        case .end:
            cancelTimer()
            if case .readingBody(responded: true, let nextStarted) = state {
                // Answered before its body was in: what follows is the next request (bytes that came with the
                // body's end count as its start, which at worst closes an idle connection at the header timeout).
                state = nextStarted ? .readingHead : .idle
                if nextStarted { schedule(headerTimeout) }
            } else {
                state = .responding(nextStarted: false)
            }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) {
            switch state {
            case .responding(let nextStarted):
                if nextStarted {
                    state = .readingHead
                    schedule(headerTimeout)
                } else {
                    state = .idle
                }
            case .readingBody(responded: false, let nextStarted):
                state = .readingBody(responded: true, nextStarted: nextStarted)
            case .idle, .readingHead, .readingBody:
                break
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

    private func cancelSendTimer() {
        sendTimer?.cancel()
        sendTimer = nil
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
