import Foundation
import NIOCore
import NIOPosix
import RelinkTestSupport
import Testing

@testable import RelinkServer

#if canImport(Glibc)
import Glibc
#endif

@Suite("Closing a connection that still has requests unread")
struct LingeringCloseTests {
    /// Answers the first bytes it reads with `answer`, then closes the connection, as a stop or a
    /// `Connection: close` does with requests still pipelined behind.
    final class AnswerThenClose: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        static let answer = String(repeating: "answered\n", count: 2000)
        private var answered = false

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            guard !answered else { return }
            answered = true
            context.writeAndFlush(NIOAny(ByteBuffer(string: Self.answer)), promise: nil)
            context.close(promise: nil)
        }
    }

    /// Runs a server of `AnswerThenClose` behind `LingeringCloseHandler` (or not), sends it far more than it reads
    /// from a client whose small receive buffer holds the answer back, and reads: what arrived and how it ended.
    static func exchange(lingering: Bool) async throws -> (received: String, errno: Int32?) {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if lingering { try channel.pipeline.syncOperations.addHandler(LingeringCloseHandler(linger: .seconds(5))) }
                    try channel.pipeline.syncOperations.addHandler(AnswerThenClose())
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        defer { server.close(promise: nil) }
        let descriptor = try LoopbackSocket.connected(port: try #require(server.localAddress?.port), receiveBuffer: 4096)
        defer { close(descriptor) }
        let requests = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        // From a thread of its own: the send waits while the server does not read.
        Thread.detachNewThread {
            var sent = 0
            while sent < requests.count {
                let count = requests[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return }
                sent += count
            }
            shutdown(descriptor, Int32(SHUT_WR))
        }
        // The server has answered and closed by now; the client reads only then.
        try await Task.sleep(for: .milliseconds(500))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count > 0 {
                received += buffer[..<count]
            } else {
                return (String(decoding: received, as: UTF8.self), count < 0 ? errno : nil)
            }
        }
    }

    /// RFC 9112 9.6: closed at once with requests unread, the socket resets the connection, and the reset throws away
    /// the answer already written but not yet received (a click counted whose client never hears of it, and retries).
    /// Closed lingering, the answer arrives whole and the connection ends cleanly.
    @Test func theAnswerWrittenBeforeACloseArrivesWhole() async throws {
        let lingering = try await Self.exchange(lingering: true)
        #expect(lingering.errno == nil && lingering.received == AnswerThenClose.answer, "errno \(lingering.errno ?? 0)")
        let abrupt = try await Self.exchange(lingering: false)
        #expect(abrupt.errno == ECONNRESET, "the test shows nothing unless closing at once resets: \(abrupt.received.count) bytes")
    }
}
