import NIOCore
import NIOHTTP1
import NIOPosix

/// Answers every request with the same 302, as a static redirect would: no routing, no context, no middleware.
final class RedirectHandler: ChannelInboundHandler, Sendable {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    static let headers: HTTPHeaders = [
        "Location": "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android", "Cache-Control": "no-store",
        "Content-Length": "0",
    ]

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = unwrapInboundIn(data) else { return }
        let head = HTTPResponseHead(version: .http1_1, status: .found, headers: Self.headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }
}

let port = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 18492
let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
let channel = try await ServerBootstrap(group: group)
    .serverChannelOption(.backlog, value: 256)
    .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
    .childChannelInitializer { channel in
        channel.pipeline.configureHTTPServerPipeline().flatMap { channel.pipeline.addHandler(RedirectHandler()) }
    }
    .bind(host: "127.0.0.1", port: port).get()
print("floor listening on 127.0.0.1:\(port)")
try await channel.closeFuture.get()
