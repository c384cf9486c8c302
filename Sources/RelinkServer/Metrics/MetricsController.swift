import Hummingbird
import RelinkCore

/// `GET /metrics`: the Prometheus text exposition, on the metrics listener or, behind a bearer token, on the
/// main port. A wrong or missing token is a 401 that says nothing about the metrics.
struct MetricsController: Sendable {
    let metrics: RelinkMetrics
    let token: String?

    func addRoutes<Context: RequestContext>(to router: Router<Context>) {
        router.get(RouterPath(RelinkPaths.metrics)) { request, _ in response(to: request) }
    }

    func response(to request: Request) -> Response {
        if let token {
            guard let given = BearerCredential.token(in: request.headers), Self.constantTimeEquals(given, token) else {
                return Response(
                    status: .unauthorized,
                    headers: [.wwwAuthenticate: "Bearer realm=\"relink metrics\"", .contentType: "text/plain; charset=utf-8"],
                    body: .init(byteBuffer: ByteBuffer(string: "Metrics need the bearer token given by --metrics-token.\n")))
            }
        }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: metrics.render())))
    }

    /// Compares without stopping at the first difference, so timing does not reveal the token a byte at a time.
    static func constantTimeEquals(_ given: Substring, _ expected: String) -> Bool {
        let a = Array(given.utf8)
        let b = Array(expected.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<b.count { difference |= (index < a.count ? a[index] : 0) ^ b[index] }
        return difference == 0
    }
}
