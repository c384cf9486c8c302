import NIOCore

/// Closes a connection as RFC 9112 9.6 asks: output first, then reading and dropping what the client still sends
/// until it closes its side or `linger` passes, and only then the socket. Closed at once while requests it sent are
/// still unread (pipelined behind a `Connection: close`, or when a stop ends the connection), the socket would reset
/// the connection, and the reset throws away the answers already written but not yet received: clicks counted whose
/// client never learns of them, and retries them. First in the pipeline, so every close goes through it.
final class LingeringCloseHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Long enough for the last answers to reach a client that reads them, short enough for a stop.
    static let linger = TimeAmount.seconds(2)

    private let linger: TimeAmount
    private var lingering = false
    private var deadline: Scheduled<Void>?

    init(linger: TimeAmount = LingeringCloseHandler.linger) {
        self.linger = linger
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        guard mode != .input, context.channel.isActive else {
            context.close(mode: mode, promise: promise)
            return
        }
        guard !lingering else {
            // Already lingering (after an output closed on its own): the close comes at the client's end or the
            // deadline, not now.
            if mode == .all { context.channel.closeFuture.cascade(to: promise) } else { promise?.succeed(()) }
            return
        }
        lingering = true
        // After what is written has been sent: NIO shuts the output down once its pending writes are flushed. An
        // output closed on its own (the answer to `Connection: close`) lingers the same way, so the connection and
        // its place under the connection limit are given up within `linger`, not at the idle timeout.
        if mode == .all {
            context.channel.closeFuture.cascade(to: promise)
            context.close(mode: .output, promise: nil)
        } else {
            context.close(mode: .output, promise: promise)
        }
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: linger) {
            bound.value.close(mode: .all, promise: nil)
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Past the close nothing is answered: what arrives is only read to keep the socket from resetting.
        guard !lingering else { return }
        context.fireChannelRead(data)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        guard lingering else {
            context.fireChannelReadComplete()
            return
        }
        // The handlers behind may have stopped asking for reads (back pressure); draining does not wait for them.
        context.read()
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if lingering, let event = event as? ChannelEvent, event == .inputClosed {
            context.close(mode: .all, promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or broken pipe while draining ends the linger: the socket is closed below us anyway.
        guard lingering else {
            context.fireErrorCaught(error)
            return
        }
        context.close(mode: .all, promise: nil)
    }

    /// Puts a `LingeringCloseHandler` first in the pipeline, where Hummingbird's extra handlers (placed after the
    /// HTTP codec) cannot go, and removes itself.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        func handlerAdded(context: ChannelHandlerContext) {
            let operations = context.pipeline.syncOperations
            try? operations.addHandler(LingeringCloseHandler(), position: .first)
            operations.removeHandler(context: context, promise: nil)
        }
    }
}
