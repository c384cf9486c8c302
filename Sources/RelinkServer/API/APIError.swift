import Foundation
import HTTPTypes
import Hummingbird
import RelinkCore

/// An error of the REST API. Its response is Google's JSON error body, the only place that body is made:
/// `{"error": {"code": 400, "message": "…", "status": "INVALID_ARGUMENT"}}`.
struct APIError: HTTPResponseError, Sendable, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String
    /// Extra headers, such as `Retry-After` on 429.
    var headers: HTTPFields = [:]
    /// Google's status name where the HTTP status has several (409: `ALREADY_EXISTS` or `ABORTED`).
    var statusName: String? = nil

    var description: String { "\(status.code) \(googleStatus): \(message)" }

    /// Google's canonical status name for the HTTP status.
    var googleStatus: String {
        if let statusName { return statusName }
        return switch status.code {
        case 400, 413: "INVALID_ARGUMENT"
        case 401: "UNAUTHENTICATED"
        case 403: "PERMISSION_DENIED"
        case 404: "NOT_FOUND"
        case 405: "UNIMPLEMENTED"
        case 409: "ALREADY_EXISTS"
        case 429: "RESOURCE_EXHAUSTED"
        case 503: "UNAVAILABLE"
        default: status.code < 500 ? "FAILED_PRECONDITION" : "INTERNAL"
        }
    }

    static func invalidArgument(_ message: String) -> APIError { APIError(status: .badRequest, message: message) }
    static func permissionDenied(_ message: String) -> APIError { APIError(status: .forbidden, message: message) }
    static func notFound(_ message: String) -> APIError { APIError(status: .notFound, message: message) }
    static func alreadyExists(_ message: String) -> APIError { APIError(status: .conflict, message: message) }
    /// 409 `ABORTED`: a concurrent change got in the way; the same request again can succeed.
    static func aborted(_ message: String) -> APIError { APIError(status: .conflict, message: message, statusName: "ABORTED") }

    static let missingKey = APIError(
        status: .unauthorized,
        message: "Method doesn't allow unregistered callers. Pass an API key as ?key= or Authorization: Bearer.")
    static let invalidKey = APIError(status: .unauthorized, message: "API key not valid. Please pass a valid API key.")
    static let `internal` = APIError(status: .internalServerError, message: "Internal error. It has been logged.")

    /// 429 with `Retry-After`; `limiting` says what was limited ("minting with this API key").
    static func rateLimited(retryAfter seconds: Int, limiting: String) -> APIError {
        APIError(
            status: .tooManyRequests,
            message: "Quota exceeded for \(limiting); retry in \(seconds) s.",
            headers: [.retryAfter: String(seconds)])
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let body = APIErrorBody(code: status.code, message: message, status: googleStatus)
        var headers = headers
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: try JSONResponse.encoder.encode(body))))
    }
}
