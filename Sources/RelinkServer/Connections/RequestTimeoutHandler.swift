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
    /// When the request being read must be complete; nil when nothing is being read.
    private var deadline: NIODeadline?
    /// The one scheduled check of `deadline`. Moving the deadline does not reschedule it (a request costs no timer):
    /// when it fires early it sets itself again for the deadline of the moment.
    private var check: Scheduled<Void>?
    private var sendTimer: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    /// The connection limit this connection holds a place in (one handler less on every request's way).
    private let limit: ConnectionLimit?
    private var holdsPlace = false

    init(headerTimeout: TimeAmount, bodyTimeout: TimeAmount, sendTimeout: TimeAmount = .seconds(10), limit: ConnectionLimit? = nil) {
        self.headerTimeout = headerTimeout
        self.bodyTimeout = bodyTimeout
        self.sendTimeout = sendTimeout
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if let limit {
            holdsPlace = limit.acquire()
            // Past the limit: closed as soon as accepted.
            guard holdsPlace else {
                context.close(promise: nil)
                return
            }
        }
        try? context.pipeline.syncOperations.addHandler(RequestByteObserver(owner: self), position: .first)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stopChecking()
        cancelSendTimer()
        if holdsPlace { limit?.release() }
        holdsPlace = false
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        stopChecking()
        cancelSendTimer()
        context.fireChannelInactive()
    }

    /// Unwritable: responses are queued because the client does not read them. It has `sendTimeout` to start again.
    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancelSendTimer()
        } else if sendTimer == nil {
            // Captures self strongly, as the check does: `stopChecking`/`cancelSendTimer` break the cycle.
            sendTimer = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(in: sendTimeout) {
                guard let context = self.context else { return }
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
        let when = NIODeadline.now() + timeout
        deadline = when
        if check == nil { arm(at: when) }
    }

    private func arm(at when: NIODeadline) {
        guard let context else { return }
        // Strong, not `[weak self]`: a weak reference gives the handler a side table, which slows down every retain
        // and release of it, and the pipeline retains it for each part of every response. The cycle (self → check →
        // closure → self) is broken when the check fires or is cancelled, at the latest when the channel closes.
        check = context.eventLoop.assumeIsolatedUnsafeUnchecked().scheduleTask(deadline: when) {
            self.check = nil
            guard let deadline = self.deadline else { return }
            if deadline <= .now() {
                self.context?.close(promise: nil)
            } else {
                self.arm(at: deadline)
            }
        }
    }

    /// Nothing is being read: a check already scheduled finds nothing to do.
    private func cancelTimer() {
        deadline = nil
    }

    private func stopChecking() {
        deadline = nil
        check?.cancel()
        check = nil
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

    /// Strong (see `RequestTimeoutHandler.arm`): the owner never points back, and both leave with the pipeline.
    private let owner: RequestTimeoutHandler

    init(owner: RequestTimeoutHandler) {
        self.owner = owner
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        owner.bytesArrived()
        context.fireChannelRead(data)
    }
}
