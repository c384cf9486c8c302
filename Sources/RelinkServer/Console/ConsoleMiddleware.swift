import HTTPTypes
import Hummingbird
import Logging
import RelinkCore
import RelinkStore

/// In front of every console route: finds the signed-in user (when the request carries a live session) and turns
/// every failure into a page (or, for the form checker, JSON): sign-in required sends pages to the sign-in form,
/// a store outage is a 503, never a 500.
struct ConsoleMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    let sessions: ConsoleSessions
    let renderer: ConsoleRenderer
    var outages: StoreOutageLog?

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        do {
            context.console = try await sessions.user(of: request, secure: context.origin.scheme == "https")
            return try await next(request, context)
        } catch {
            return response(for: error, request: request, context: context)
        }
    }

    func response(for error: any Error, request: Request, context: Context) -> Response {
        let user = context.console.map(ConsolePageUser.init)
        let status: HTTPResponse.Status
        let message: String
        switch error {
        case ConsoleError.signInRequired where request.method == .get || request.method == .head:
            return Response(status: .seeOther, headers: ConsoleRenderer.securityHeaders + [.location: "/console/sign-in"])
        case let error as ConsoleError:
            (status, message) = (error.status, error.message)
        default:
            let mapped = APIErrorMapping.apiError(error, request: request, context: context, outages: outages)
            if let api = mapped as? APIError {
                (status, message) = (api.status, api.message)
            } else if let http = mapped as? any HTTPResponseError {
                (status, message) = (http.status, "The request could not be handled (\(http.status.code)).")
            } else {
                context.logger.error("console request failed: \(error)")
                (status, message) = (.internalServerError, "Internal error. It has been logged.")
            }
        }
        if request.uri.path.hasSuffix("/validate") {
            // The form checker reads JSON: the API's error body (with a limit's Retry-After).
            let api = (error as? APIError) ?? APIError(status: status, message: message)
            return (try? api.response(from: request, context: context)) ?? Response(status: status)
        }
        var response = renderer.html(
            ConsoleMessagePage(
                title: status == .serviceUnavailable ? "Temporarily unavailable" : "Not done", heading: Self.heading(status), user: user,
                paragraphs: [message], back: user == nil ? "/console/sign-in" : "/console/links",
                backLabel: user == nil ? "Sign in" : "Back to the links"),
            status: status)
        // A limit says when to come back (its own Retry-After); an outage, in a second.
        if let limited = (error as? APIError)?.headers[.retryAfter] {
            response.headers[.retryAfter] = limited
        } else if status == .serviceUnavailable || status == .tooManyRequests {
            response.headers[.retryAfter] = "1"
        }
        return response
    }

    static func heading(_ status: HTTPResponse.Status) -> String {
        switch status.code {
        case 401: "Sign in required"
        case 403: "Refused"
        case 404: "Not found"
        case 429: "Too many attempts"
        case 503: "Temporarily unavailable"
        case 400..<500: "This could not be done"
        default: "Something went wrong"
        }
    }
}

extension HTTPFields {
    static func + (lhs: HTTPFields, rhs: HTTPFields) -> HTTPFields {
        var fields = lhs
        fields.append(contentsOf: rhs)
        return fields
    }
}
