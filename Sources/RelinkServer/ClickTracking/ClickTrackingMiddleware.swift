import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import RelinkCore

/// An email service's tracking domain that Relink hosts (`clickTracking` in routes.json): its association files are
/// Relink's (`AssociationController`, the tracking paths only) unless the service's own are asked for
/// (`associationFiles: upstream`), and every other request goes to the service's
/// upstream as it came (method, path, query, the headers the service reads, the client's address in
/// `X-Forwarded-For`), the answer coming back as the service gave it: the service counts the click and redirects, as
/// without Relink. The upstream is the configuration's, never the request's; nothing is followed on Relink's side.
struct ClickTrackingMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    let proxy: ClickTrackingProxy
    let pages: PageRenderer
    /// The most of a request's body passed on (a tracking click has none; a form posted through may).
    static let maximumBodyBytes = 64 * 1024

    /// The client's headers the upstream gets: what a browser says of itself and its cookies for the tracking domain.
    /// Hop-by-hop, framing, forwarding and credential headers are set here or not passed.
    static let cdnLoop = HTTPField.Name("CDN-Loop")!

    static let passedHeaders: [HTTPField.Name] = [
        .userAgent, .accept, .acceptLanguage, .cookie, HTTPField.Name("Referer")!, .contentType, .ifNoneMatch, .ifModifiedSince,
        HTTPField.Name("DNT")!,
    ]

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let (_, tracking) = proxy.directory.clickTracking(host: context.origin.host) else { return try await next(request, context) }
        let path = request.uri.path
        guard Self.passesToService(path, on: tracking) else { return try await next(request, context) }
        // The origin-form target only: an absolute-form request's scheme and host never reach the upstream's URL.
        guard path.hasPrefix("/") else {
            return pages.message("Bad request", ["The request's target is not a path."], status: .badRequest)
        }
        if ClickTrackingProxy.carriesLoopMark(request.headers[values: Self.cdnLoop]) {
            proxy.metrics?.clickTrackingError(ClickTrackingProxy.ErrorReason.loop.rawValue)
            if let line = proxy.failureLog.line(
                "\(tracking.upstream) loop", "click tracking: \(tracking.upstream) leads back to Relink; its requests come back (CDN-Loop)")
            {
                context.logger.warning("\(line)")
            }
            return pages.message(
                "The link could not be followed", ["The tracking domain's upstream leads back to this server."],
                status: HTTPResponse.Status(code: 508, reasonPhrase: "Loop Detected"))
        }
        let target = path + (request.uri.query.map { "?" + $0 } ?? "")
        guard !SafeFetcher.hasDotSegments(tracking.upstream.description + target) else {
            return pages.message("Bad request", ["The path has . or .. segments."], status: .badRequest)
        }
        var headers: [(name: String, value: String)] = []
        for name in Self.passedHeaders {
            for value in request.headers[values: name] { headers.append((name.rawName, value)) }
        }
        var body: ByteBuffer?
        if request.method != .get && request.method != .head {
            do {
                body = try await request.body.collect(upTo: Self.maximumBodyBytes)
            } catch {
                return pages.message("Request too large", ["At most \(Self.maximumBodyBytes) bytes are passed on."], status: .contentTooLarge)
            }
        }
        guard proxy.enter() else {
            return pages.message("Busy", ["Too many links are being followed at once; try again in a moment."], status: .serviceUnavailable)
        }
        defer { proxy.leave() }
        let answer: SafeFetcher.ForwardedAnswer
        do {
            answer = try await proxy.forward(
                tracking, method: HTTPMethod(rawValue: request.method.rawValue), target: target, headers: headers, body: body,
                clientAddress: context.origin.clientAddress, scheme: context.origin.scheme)
        } catch .timedOut {
            if let line = proxy.failureLog.line("\(tracking.upstream) timeout", "click tracking: \(tracking.upstream) did not answer in time") {
                context.logger.warning("\(line)")
            }
            return pages.message("The link could not be followed", ["The email service did not answer in time."], status: .gatewayTimeout)
        } catch {
            if let line = proxy.failureLog.line("\(tracking.upstream) failure", "click tracking: \(tracking.upstream): \(error)") {
                context.logger.warning("\(line)")
            }
            return pages.message("The link could not be followed", ["The email service could not be reached."], status: .badGateway)
        }
        // A final answer only: an interim one (101 above all) passed on as the answer would make a proxy in front of
        // Relink take the connection for a tunnel, past its checks.
        guard (200...599).contains(answer.status) else {
            proxy.metrics?.clickTrackingError(ClickTrackingProxy.ErrorReason.badAnswer.rawValue)
            return pages.message("The link could not be followed", ["The email service answered oddly."], status: .badGateway)
        }
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            if let name = HTTPField.Name(name) { fields.append(HTTPField(name: name, value: value)) }
        }
        return Response(
            status: HTTPResponse.Status(code: Int(answer.status)), headers: fields,
            body: request.method == .head ? ResponseBody() : ResponseBody(byteBuffer: answer.body))
    }

    /// Whether a request for `path` on `tracking`'s domain goes to the service: all but Relink's association files
    /// (the metrics count what this passes as `click_tracking`).
    static func passesToService(_ path: String, on tracking: ClickTrackingHost) -> Bool {
        tracking.associationFilesFromUpstream || !isAssociationFile(path)
    }

    /// As the router reads the path, which serves the files also at `//.well-known/assetlinks.json/`.
    static func isAssociationFile(_ path: String) -> Bool {
        RelinkPaths.associationFiles.contains { RelinkPaths.names(Substring(path), $0) }
    }
}
