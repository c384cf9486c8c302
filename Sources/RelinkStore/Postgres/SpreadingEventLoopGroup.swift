import Dispatch
import NIOCore

/// An event loop group that hands out its loops in turn, also when asked from one of them: postgres-nio opens each
/// connection on `any()`, which from a loop's own thread is that loop, so the pool (run from a loop) put every
/// connection on one, and that loop did all the database I/O while the other idled
/// (docs/performance.md#connections-spread-over-the-event-loops).
final class SpreadingEventLoopGroup: EventLoopGroup {
    let base: any EventLoopGroup

    init(_ base: any EventLoopGroup) {
        self.base = base
    }

    func next() -> any EventLoop { base.next() }
    func any() -> any EventLoop { base.next() }
    func makeIterator() -> EventLoopIterator { base.makeIterator() }

    func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
        base.shutdownGracefully(queue: queue, callback)
    }
}
