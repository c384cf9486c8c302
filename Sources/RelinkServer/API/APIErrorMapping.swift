import Hummingbird
import Logging
import RelinkCore
import RelinkStore

/// How a failure under `/v1` becomes Google's JSON error body (`RequestObservingMiddleware` applies it):
/// Hummingbird's own errors (an unknown path, an oversized body) keep their status, a store problem is a 503,
/// anything unexpected becomes a logged 500, never an HTML page.
enum APIErrorMapping {
    static func apiError(
        _ error: any Error, request: Request, context: RelinkRequestContext, outages: StoreOutageLog? = nil
    ) -> any Error {
        do {
            throw error
        } catch let error as APIError {
            return error
        } catch let error as any HTTPResponseError {
            switch error.status {
            case .contentTooLarge:
                return APIError(status: .contentTooLarge, message: "The request body is larger than \(RelinkRequestContext.maximumBodySize) bytes.")
            case .notFound:
                return APIError.notFound("No such API method: \(request.method) \(request.uri.path).")
            case .methodNotAllowed:
                return APIError(status: .methodNotAllowed, message: "\(request.method) is not supported on \(request.uri.path).")
            default:
                return APIError(status: error.status, message: "\(error)")
            }
        } catch is DecodingError {
            return APIError.invalidArgument("Invalid JSON payload received.")
        } catch StoreError.unavailable(let why) {
            if let outages {
                outages.report("api", "API request failed: \(request.method) \(request.uri.path)", error: StoreError.unavailable(why))
            } else {
                context.logger.error("API request failed: \(request.method) \(request.uri.path): \(why)")
            }
            return APIError(
                status: .serviceUnavailable, message: "The database is unavailable. Try again shortly.", headers: [.retryAfter: "1"])
        } catch {
            context.logger.error("API request failed: \(request.method) \(request.uri.path): \(String(reflecting: error))")
            return APIError.internal
        }
    }
}
