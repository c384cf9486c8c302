/// Why a call of `Relink` gave no answer: a value the app switches on, never thrown past it.
public struct RelinkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The same kinds in the Swift, Android and JavaScript clients (clients/conformance/README.md).
    public enum Kind: String, Sendable, Equatable {
        /// No connection to the server (no network, refused, no such host).
        case offline
        /// No answer within the timeout.
        case timeout
        /// 429, still after the retries the budget allows.
        case rateLimited
        /// 503, still after the retries the budget allows.
        case unavailable
        /// Any other answer outside 2xx, a redirect included (never followed).
        case http
        /// A 2xx answer that is not the JSON expected (a captive portal's page, say).
        case malformed
        /// The call's own arguments: an empty link, a server URL that is not https.
        case invalidInput
    }

    public var kind: Kind
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// FDL's status name from the error body (`NOT_FOUND`, `RESOURCE_EXHAUSTED`, …).
    public var apiStatus: String?
    public var message: String
    /// The server's `Retry-After`, in seconds, when it sent one.
    public var retryAfterSeconds: Int?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(kind: Kind, status: Int? = nil, apiStatus: String? = nil, message: String, retryAfterSeconds: Int? = nil) {
        self.kind = kind
        self.status = status
        self.apiStatus = apiStatus
        self.message = message
        self.retryAfterSeconds = retryAfterSeconds
    }

    public var description: String {
        guard let status else { return "\(kind.rawValue): \(message)" }
        return "\(kind.rawValue): \(message) (HTTP \(status)\(apiStatus.map { " \($0)" } ?? ""))"
    }
}
