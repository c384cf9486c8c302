/// Why a call failed: the server's own error (status and Google status name), or a transport failure.
public struct RelinkClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// Google's status name from the error body (`INVALID_ARGUMENT`, `UNAUTHENTICATED`, …).
    public var apiStatus: String?
    /// The server's message, or what went wrong on the way (no answer, an unreadable answer).
    public var message: String

    /// - Parameters:
    ///   - status: the HTTP status, or nil when no answer came.
    ///   - apiStatus: the error body's Google status name, if it had one.
    ///   - message: what went wrong, in words.
    public init(status: Int?, apiStatus: String?, message: String) {
        self.status = status
        self.apiStatus = apiStatus
        self.message = message
    }

    public var description: String {
        guard let status else { return message }
        return "\(message) (HTTP \(status)\(apiStatus.map { " \($0)" } ?? ""))"
    }
}
