import HTTPTypes
import Hummingbird

/// CORS for the two keyless endpoints apps call (`installAttribution`, `reopenAttribution`), so that a web page or a
/// Capacitor/Cordova webview can call them with the browser's `fetch`: any origin, no credentials (they take none),
/// `Retry-After` readable. The keyed API stays same-origin: a page must not spend an API key.
struct PublicCORSMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    let outages: StoreOutageLog?

    static let allowHeaders: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlExposeHeaders: "Retry-After",
    ]

    /// The answer to a preflight: POST with a JSON body, cached for a day.
    static let preflight: HTTPFields = [
        .accessControlAllowOrigin: "*",
        .accessControlAllowMethods: "POST",
        .accessControlAllowHeaders: "Content-Type, Accept",
        .accessControlMaxAge: "86400",
        .allow: "OPTIONS, POST",
    ]

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        if request.method == .options { return Response(status: .noContent, headers: Self.preflight) }
        do {
            var response = try await next(request, context)
            response.headers.append(contentsOf: Self.allowHeaders)
            return response
        } catch {
            // Mapped here, as the observing middleware would, so that a refusal (429, 503) is readable by the page too.
            guard var refusal = APIErrorMapping.apiError(error, request: request, context: context, outages: outages) as? APIError else {
                throw error
            }
            refusal.headers.append(contentsOf: Self.allowHeaders)
            throw refusal
        }
    }
}
