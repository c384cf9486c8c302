import NIOConcurrencyHelpers
import NIOCore
import NIOHTTPTypes

/// The most connections open at once, over every listener: past it a new connection is closed as soon as it is
/// accepted, so clients holding connections cannot use up the process's file descriptors and lock everyone out.
final class ConnectionLimit: Sendable {
    let maximum: Int
    private let open = NIOLockedValueBox(0)

    init(maximum: Int) {
        self.maximum = max(1, maximum)
    }

    var count: Int { open.withLockedValue { $0 } }

    /// Takes a place; false when all are taken.
    func acquire() -> Bool {
        open.withLockedValue { open in
            guard open < maximum else { return false }
            open += 1
            return true
        }
    }

    func release() { open.withLockedValue { $0 -= 1 } }
}

/// Holds a place in a `ConnectionLimit` for its connection's lifetime, or closes the connection when there is none.
final class ConnectionLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private let limit: ConnectionLimit
    private var holdsPlace = false

    init(limit: ConnectionLimit) {
        self.limit = limit
    }

    func handlerAdded(context: ChannelHandlerContext) {
        holdsPlace = limit.acquire()
        if !holdsPlace { context.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if holdsPlace { limit.release() }
        holdsPlace = false
    }
}
