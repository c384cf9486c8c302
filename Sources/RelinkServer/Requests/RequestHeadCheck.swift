import NIOCore
import NIOHTTP1

/// Holds each HTTP/1 request head to RFC 9112 while it is still NIO's, before Hummingbird converts it and loses what
/// this needs: the conversion keeps the first `Host` line as the authority and any other as a header (so either
/// could pass for the host), and keeps only the path of an absolute-form target (`GET http://go.example.com/x`).
///
/// - More than one `Host` line (§3.2): refused with 400, and the connection closed once the responses to the
///   requests before it are out (in their order; Hummingbird answers pipelined requests one after another).
/// - An absolute-form target (§3.2.2): its authority replaces the `Host` lines, so the request is answered for the
///   host it names. A target whose authority is not a plain `host[:port]` (userinfo, an empty host) is refused, and
///   so is any target neither origin-form, asterisk-form nor `http(s)://` (another scheme, CONNECT's authority-form).
///
/// A trusted proxy's forwarded host still overrides either (see `RequestOrigin`).
final class RequestHeadCheck: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// What a head gets.
    enum Verdict: Equatable {
        /// Passed on as it is: the common case, which costs no allocation.
        case pass
        /// Passed on with this authority as its one `Host` line.
        case authority(String)
        /// Answered 400 with this reason.
        case refuse(String)
    }

    /// Requests passed on whose responses have not ended.
    private var unanswered = 0
    /// The reason a request was refused: its parts and everything after it are dropped, and the 400 goes out once
    /// `unanswered` is 0.
    private var refusal: String?

    static func verdict(uri: String, headers: HTTPHeaders) -> Verdict {
        var hostLines = 0
        for (name, _) in headers where isHost(name) { hostLines += 1 }
        guard hostLines <= 1 else { return .refuse("A request has one Host header line (RFC 9112, section 3.2).") }
        guard let first = uri.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") else { return .pass }
        // Any other form (`ftp://b.example/x`, `urn:x`, CONNECT's `b.example:443`) names a host too, and Hummingbird would
        // answer its path for the Host line's.
        guard let authority = absoluteFormAuthority(uri) else {
            return .refuse("Relink answers origin-form and http(s) absolute-form request targets (RFC 9112, section 3.2).")
        }
        guard RequestOrigin.isValidHost(authority) else {
            return .refuse("The request target's authority is not a host (RFC 9112, section 3.2.2).")
        }
        return .authority(String(authority))
    }

    /// The authority of an `http://` or `https://` target (scheme in any case); nil for any other form.
    static func absoluteFormAuthority(_ uri: String) -> Substring? {
        let utf8 = uri.utf8
        var rest: Substring
        if startsIgnoringASCIICase(utf8, with: "http://") {
            rest = Substring(uri).dropFirst(7)
        } else if startsIgnoringASCIICase(utf8, with: "https://") {
            rest = Substring(uri).dropFirst(8)
        } else {
            return nil
        }
        if let end = rest.utf8.firstIndex(where: { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }) {
            rest = rest[..<end]
        }
        return rest
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard refusal == nil else { return }
        guard case .head(var head) = unwrapInboundIn(data) else {
            context.fireChannelRead(data)
            return
        }
        switch Self.verdict(uri: head.uri, headers: head.headers) {
        case .pass:
            unanswered += 1
            context.fireChannelRead(data)
        case .authority(let authority):
            head.headers.replaceOrAdd(name: "Host", value: authority)
            unanswered += 1
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .refuse(let reason):
            refusal = reason
            if unanswered == 0 { sendRefusal(context: context) }
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let ended: Bool
        if case .end = unwrapOutboundIn(data) { ended = true } else { ended = false }
        context.write(data, promise: promise)
        guard ended else { return }
        unanswered -= 1
        if refusal != nil, unanswered == 0 { sendRefusal(context: context) }
    }

    private func sendRefusal(context: ChannelHandlerContext) {
        let body = context.channel.allocator.buffer(string: (refusal ?? "") + "\n")
        let headers = HTTPHeaders([
            ("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", String(body.readableBytes)), ("Connection", "close"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }

    private static func isHost(_ name: String) -> Bool {
        name.utf8.count == 4 && startsIgnoringASCIICase(name.utf8, with: "host")
    }

    /// Whether `utf8` starts with `lowercase`, ASCII letters compared in any case.
    private static func startsIgnoringASCIICase(_ utf8: String.UTF8View, with lowercase: StaticString) -> Bool {
        guard utf8.count >= lowercase.utf8CodeUnitCount else { return false }
        return lowercase.withUTF8Buffer { expected in
            zip(utf8, expected).allSatisfy { byte, expected in
                (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte) == expected
            }
        }
    }
}

extension RequestHeadCheck {
    /// Hummingbird adds a server's extra handlers after its conversion; this one puts a `RequestHeadCheck` before
    /// the conversion, right after NIO's request decoder, and takes itself out.
    final class Installer: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = Never

        func handlerAdded(context: ChannelHandlerContext) {
            let operations = context.pipeline.syncOperations
            if let decoder = try? operations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self) {
                try? operations.addHandler(RequestHeadCheck(), position: .after(decoder))
            }
            operations.removeHandler(context: context, promise: nil)
        }
    }
}
