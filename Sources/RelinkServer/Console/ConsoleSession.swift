import Foundation

/// What a console session keeps: which key signed in (by its hash, which is no secret) and the session's CSRF token.
struct ConsoleSession: Codable, Sendable {
    /// Hex SHA-256 of the key that signed in; looked up on every request, so revoking the key ends the session.
    var keyHash: String
    var keyId: Int64
    /// Every form of the session carries it; a request without it changes nothing.
    var csrfToken: String
    var signedInAt: Date
}

/// A signed-in console user: the key's caller (its project) and the session.
struct ConsoleUser: Sendable {
    var caller: APIKeyAuthenticator.Caller
    var session: ConsoleSession
    /// The session cookie's id, to end it on sign-out.
    var sessionId: String
}
