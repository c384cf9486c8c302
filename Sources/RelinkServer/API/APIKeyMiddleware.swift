import Hummingbird

/// Authenticates every API request that names a key, before its handler runs: a valid key puts its caller in the
/// context, an invalid one is refused (401, or 429 after repeated failures). Routes that need a key ask the
/// context for it (`requireCaller()`); the public ones (claims, re-opens) read it when present.
struct APIKeyMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    let authenticator: APIKeyAuthenticator

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.caller = try await authenticator.authenticateIfPresent(request, context: context)
        var response = try await next(request, context)
        // API answers are per caller and per moment: never cached.
        if response.headers[.cacheControl] == nil { response.headers[.cacheControl] = "no-store" }
        return response
    }
}
