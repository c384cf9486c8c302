import HTTPTypes

/// Why the console refused a request, before any handler's own errors.
enum ConsoleError: Error, Equatable {
    /// No valid session: pages send the browser to the sign-in form.
    case signInRequired
    /// A form without the session's CSRF token, or posted from another site: nothing was changed.
    case forgedRequest
    /// The form, a path or a query is not what the console sends.
    case badRequest(String)
    case notFound(String)
    /// QR codes need a library this machine does not have; the text says which package to install.
    case featureMissing(String)

    var status: HTTPResponse.Status {
        switch self {
        case .signInRequired: .unauthorized
        case .forgedRequest: .forbidden
        case .badRequest: .badRequest
        case .notFound: .notFound
        case .featureMissing: .serviceUnavailable
        }
    }

    var message: String {
        switch self {
        case .signInRequired: "Sign in to use the console."
        case .forgedRequest:
            "This form did not come from this console session (its security token is missing, wrong or expired), so nothing was changed. Reload the page and try again."
        case .badRequest(let message), .notFound(let message), .featureMissing(let message): message
        }
    }
}
