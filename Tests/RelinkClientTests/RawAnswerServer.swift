import Foundation
import NIOCore
import NIOPosix

/// A loopback server answering every connection with the same raw bytes, then closing it (or leaving it open, silent):
/// for answers no HTTP server library sends (not HTTP, cut off, a status past 599, oversized headers, an interim
/// answer and then nothing).
final class RawAnswerServer {
    private final class Answer: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let bytes: [UInt8]
        let keepOpen: Bool
        var answered = false

        init(bytes: [UInt8], keepOpen: Bool) {
            self.bytes = bytes
            self.keepOpen = keepOpen
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            // The request's first bytes are enough: the client waits for the answer, whatever the rest says.
            guard !answered else { return }
            answered = true
            let channel = context.channel
            let keepOpen = keepOpen
            context.writeAndFlush(wrapOutboundOut(channel.allocator.buffer(bytes: bytes))).whenComplete { _ in
                if !keepOpen { channel.close(promise: nil) }
            }
        }
    }

    private let channel: any Channel

    /// The server's base URL.
    var base: URL { URL(string: "http://127.0.0.1:\(channel.localAddress?.port ?? 0)")! }

    /// - Parameters:
    ///   - answer: the bytes every connection gets.
    ///   - keepOpen: leave the connection open after them, sending nothing more, until the client closes it.
    init(answer: String, keepOpen: Bool = false) async throws {
        let bytes = Array(answer.utf8)
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in channel.pipeline.addHandler(Answer(bytes: bytes, keepOpen: keepOpen)) }
            .bind(host: "127.0.0.1", port: 0).get()
    }

    func close() async throws {
        try await channel.close()
    }
}
