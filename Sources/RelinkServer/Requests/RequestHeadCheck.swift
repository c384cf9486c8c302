import NIOCore
import NIOHTTP1

/// Holds each HTTP/1 request head to RFC 9112 while it is still NIO's, before Hummingbird converts it and loses what
/// this needs: the conversion keeps the first `Host` line as the authority and any other as a header (so either
/// could pass for the host), and keeps only the path of an absolute-form target (`GET http://go.example.com/x`).
///
/// - More than one `Host` line, none in an HTTP/1.1 request, or one that is not a plain `host[:port]` (§3.2): refused
///   with 400, and the connection closed once the responses to the requests before it are out (in their order;
///   Hummingbird answers pipelined requests one after another).
/// - An absolute-form target (§3.2.2): its authority replaces the `Host` line, so the request is answered for the
///   host it names, and its path and query are passed on as the target (`/` when it has no path). A target whose
///   authority is not a plain `host[:port]` (userinfo, an empty host) is refused, and so is any target neither
///   origin-form, asterisk-form nor `http(s)://` (another scheme, CONNECT's authority-form).
/// - A `Transfer-Encoding` whose last coding is not `chunked` (§6.3), or any in an HTTP/1.0 request (§6.1): the body's
///   framing is unknown, so the request is refused before anything answers it.
/// - A request after which the connection ends (§9.3: HTTP/1.0 without `keep-alive`, or a `close` option in any
///   case or list): passed on with `Connection: close` alone, the one spelling Hummingbird and the lean path read.
///
/// - CONNECT (§3.2.3): refused; Relink opens no tunnels.
/// - A request asking to switch protocols (`Upgrade` with an `upgrade` option in `Connection` or, as NIO's parser
///   reads it, `Proxy-Connection`; RFC 9110 §7.8): NIO's decoder reads nothing after it and would keep every byte
///   that follows, so it is answered as HTTP/1.1, the connection ends with that answer, and nothing is read after
///   the request's own end.
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
        /// Passed on changed.
        case amend(Amendment)
        /// Answered 400 with this reason.
        case refuse(String)
    }

    /// How a head is changed before it is passed on.
    struct Amendment: Equatable {
        /// The one `Host` line (an absolute-form target's authority).
        var authority: String?
        /// The origin-form target (an absolute-form target's path and query).
        var target: String?
        /// `Connection: close` replaces the request's own connection options.
        var close = false
        /// The request asks to switch protocols: the connection ends with its answer, and nothing more is read.
        var upgrade = false
    }

    /// Requests passed on whose responses have not ended.
    private var unanswered = 0
    /// The reason a request was refused: its parts and everything after it are dropped, and the 400 goes out once
    /// `unanswered` is 0.
    private var refusal: String?
    /// The connection ends once `unanswered` is 0 (after a request that asks to switch protocols).
    private var closesWhenAnswered = false
    /// Nothing more is read from the connection: it ends with the answers already owed.
    private var stoppedReading = false

    static func verdict(_ head: HTTPRequestHead) -> Verdict {
        var hostLines = 0
        var host: String?
        var transferEncodingLines = 0
        var transferEncodingHasTab = false
        var lastTransferCoding: Substring?
        var closes = false
        var keepsAlive = false
        var upgradeOption = false
        var upgradeLines = 0
        var connectionLines = 0
        for (name, value) in head.headers {
            switch name.utf8.count {
            case 4 where startsIgnoringASCIICase(name.utf8, with: "host"):
                hostLines += 1
                host = value
            case 10 where startsIgnoringASCIICase(name.utf8, with: "connection"):
                connectionLines += 1
                forEachToken(value) { token in
                    if equalsIgnoringASCIICase(token, "close") { closes = true }
                    if equalsIgnoringASCIICase(token, "keep-alive") { keepsAlive = true }
                    if equalsIgnoringASCIICase(token, "upgrade") { upgradeOption = true }
                }
            case 7 where startsIgnoringASCIICase(name.utf8, with: "upgrade"):
                upgradeLines += 1
            case 16 where startsIgnoringASCIICase(name.utf8, with: "proxy-connection"):
                // NIO's parser reads this as `Connection` when it decides that a request switches protocols.
                forEachToken(value) { token in
                    if equalsIgnoringASCIICase(token, "upgrade") { upgradeOption = true }
                }
            case 17 where startsIgnoringASCIICase(name.utf8, with: "transfer-encoding"):
                // Every line counts, an empty one too; NIO's parser reads a tab in the list as part of a coding.
                transferEncodingLines += 1
                if value.utf8.contains(UInt8(ascii: "\t")) { transferEncodingHasTab = true }
                lastTransferCoding = nil
                forEachToken(value) { lastTransferCoding = $0 }
            default:
                break
            }
        }
        guard hostLines <= 1 else { return .refuse("A request has one Host header line (RFC 9112, section 3.2).") }
        guard head.method != .CONNECT else { return .refuse("Relink opens no tunnels: CONNECT is not answered (RFC 9110, section 9.3.6).") }
        let isHTTP11 = head.version.major > 1 || (head.version.major == 1 && head.version.minor >= 1)
        if transferEncodingLines > 0 {
            guard isHTTP11 else {
                return .refuse("An HTTP/1.0 request's Transfer-Encoding leaves its length unknown (RFC 9112, section 6.1).")
            }
            guard let last = lastTransferCoding, equalsIgnoringASCIICase(last, "chunked"), !transferEncodingHasTab else {
                return .refuse("A request's last transfer coding is chunked (RFC 9112, section 6.3).")
            }
        }
        // Whitespace around a field value is not part of it (RFC 9110, section 5.5).
        var trimmedHost: String?
        if let host {
            let trimmed = trimmingWhitespace(host)
            guard RequestOrigin.isValidHost(trimmed) else {
                return .refuse("The Host header is not a host[:port] (RFC 9112, section 3.2).")
            }
            if trimmed.utf8.count != host.utf8.count { trimmedHost = String(trimmed) }
        } else if isHTTP11 {
            return .refuse("An HTTP/1.1 request has a Host header line (RFC 9112, section 3.2).")
        }
        let upgrade = upgradeOption && upgradeLines > 0
        var verdict = amended(head, closes: closes || (!isHTTP11 && !keepsAlive) || upgrade, connectionLines: connectionLines)
        if upgrade {
            switch verdict {
            case .pass: verdict = .amend(Amendment(close: true, upgrade: true))
            case .amend(var amendment):
                amendment.upgrade = true
                verdict = .amend(amendment)
            case .refuse: break
            }
        }
        if let trimmedHost {
            switch verdict {
            case .pass: verdict = .amend(Amendment(authority: trimmedHost))
            case .amend(var amendment) where amendment.authority == nil:
                amendment.authority = trimmedHost
                verdict = .amend(amendment)
            default: break
            }
        }
        return verdict
    }

    /// `value` without spaces and tabs at either end, by byte.
    private static func trimmingWhitespace(_ value: String) -> Substring {
        let utf8 = value.utf8
        let isWhitespace: (UInt8) -> Bool = { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }
        guard let first = utf8.firstIndex(where: { !isWhitespace($0) }), let last = utf8.lastIndex(where: { !isWhitespace($0) }) else {
            return value[value.endIndex...]
        }
        return value[first..<utf8.index(after: last)]
    }

    /// The verdict once the head's own lines are sound: its target read (an absolute form's authority and path), and
    /// its connection options reduced to the one spelling the handlers after this one read.
    private static func amended(_ head: HTTPRequestHead, closes: Bool, connectionLines: Int) -> Verdict {
        var amendment = Amendment()
        // `Connection: close` alone is already the spelling read after this.
        if closes, !(connectionLines == 1 && head.headers.first(name: "connection") == "close") { amendment.close = true }
        let uri = head.uri
        if let first = uri.utf8.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "*") {
            // Any other form (`ftp://b.example/x`, `urn:x`, CONNECT's `b.example:443`) names a host too, and Hummingbird
            // would answer its path for the Host line's.
            guard let authority = absoluteFormAuthority(uri) else {
                return .refuse("Relink answers origin-form and http(s) absolute-form request targets (RFC 9112, section 3.2).")
            }
            guard RequestOrigin.isValidHost(authority) else {
                return .refuse("The request target's authority is not a host (RFC 9112, section 3.2.2).")
            }
            amendment.authority = String(authority)
            let rest = uri[authority.endIndex...]
            amendment.target = rest.utf8.first == UInt8(ascii: "/") ? String(rest) : "/" + rest
        }
        return amendment == Amendment() ? .pass : .amend(amendment)
    }

    /// Calls `visit` with each non-empty comma-separated element of a list header's value, without its whitespace.
    private static func forEachToken(_ value: String, _ visit: (Substring) -> Void) {
        let utf8 = value.utf8
        func isWhitespace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = utf8.startIndex
        var index = utf8.startIndex
        while true {
            let atEnd = index == utf8.endIndex
            if atEnd || utf8[index] == UInt8(ascii: ",") {
                var lower = start
                var upper = index
                while lower < upper, isWhitespace(utf8[lower]) { lower = utf8.index(after: lower) }
                while upper > lower, isWhitespace(utf8[utf8.index(before: upper)]) { upper = utf8.index(before: upper) }
                if lower < upper { visit(value[lower..<upper]) }
                if atEnd { return }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
    }

    private static func equalsIgnoringASCIICase(_ text: Substring, _ lowercase: StaticString) -> Bool {
        text.utf8.count == lowercase.utf8CodeUnitCount && startsIgnoringASCIICase(text.utf8, with: lowercase)
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
            // An upgrade request's own body and end still come (they are read as ever); NIO's decoder stops after them.
            if closesWhenAnswered, case .end = unwrapInboundIn(data) { stoppedReading = true }
            context.fireChannelRead(data)
            return
        }
        guard !closesWhenAnswered else { return }
        switch Self.verdict(head) {
        case .pass:
            unanswered += 1
            context.fireChannelRead(data)
        case .amend(let amendment):
            if let authority = amendment.authority { head.headers.replaceOrAdd(name: "Host", value: authority) }
            if let target = amendment.target { head.uri = target }
            if amendment.close { head.headers.replaceOrAdd(name: "Connection", value: "close") }
            unanswered += 1
            if amendment.upgrade {
                // NIO's decoder passes on this request's own parts and then nothing: every later byte would be kept.
                // Reading stops once its end is in.
                closesWhenAnswered = true
            }
            context.fireChannelRead(wrapInboundOut(.head(head)))
        case .refuse(let reason):
            refusal = reason
            stoppedReading = true
            if unanswered == 0 { sendRefusal(context: context) }
        }
    }

    func read(context: ChannelHandlerContext) {
        guard !stoppedReading else { return }
        context.read()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        unanswered -= 1
        if closesWhenAnswered, unanswered == 0 {
            // Closed once the answer is out: a close before would drop what is not yet written.
            let channel = context.channel
            let written = promise ?? context.eventLoop.makePromise()
            context.writeAndFlush(data, promise: written)
            written.futureResult.whenComplete { _ in channel.close(promise: nil) }
            return
        }
        context.write(data, promise: promise)
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

    /// Whether `utf8` starts with `lowercase`, ASCII letters compared in any case.
    private static func startsIgnoringASCIICase(_ utf8: some Collection<UInt8>, with lowercase: StaticString) -> Bool {
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
