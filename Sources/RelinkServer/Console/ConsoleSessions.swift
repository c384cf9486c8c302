import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import RelinkCore
import RelinkStore

/// Console sign-in state: hummingbird-auth's `SessionStorage` over `ConsoleSessionDriver`, an HttpOnly,
/// SameSite=Strict cookie scoped to /console (Secure when the request came over https), and the sign-in form's own
/// CSRF cookie.
struct ConsoleSessions: Sendable {
    static let cookieName = "relink_console"
    static let signInCookieName = "relink_console_signin"
    static let path = "/console"
    /// How long a session lasts.
    static let lifetime = Duration.seconds(12 * 3600)

    let store: any RelinkStore
    let configuration: RelinkConfiguration
    private let plain: SessionStorage<ConsoleSession>
    private let secure: SessionStorage<ConsoleSession>

    init(store: any RelinkStore, configuration: RelinkConfiguration) {
        self.store = store
        self.configuration = configuration
        let driver = ConsoleSessionDriver(store: store)
        func storage(secure: Bool) -> SessionStorage<ConsoleSession> {
            SessionStorage(
                driver,
                configuration: SessionStorageConfiguration(
                    sessionCookieParameters: SessionCookieParameters(name: Self.cookieName, path: Self.path, secure: secure, sameSite: .strict),
                    keyPrefix: "console."))
        }
        plain = storage(secure: false)
        secure = storage(secure: true)
    }

    /// A new session for `caller` (a new id every time: a session id known before sign-in is worth nothing after).
    func signIn(_ caller: APIKeyAuthenticator.Caller, secure isSecure: Bool) async throws -> Cookie {
        let session = ConsoleSession(
            keyHash: caller.key.keyHash, keyId: caller.key.id, csrfToken: Self.randomToken(), signedInAt: Date())
        return try await (isSecure ? secure : plain).save(session: session, expiresIn: Self.lifetime)
    }

    /// The signed-in user of `request`: a live session whose key is still valid and whose project still exists.
    func user(of request: Request) async throws -> ConsoleUser? {
        guard let id = plain.getId(request: request), !id.isEmpty, id.utf8.count <= 128 else { return nil }
        let session: ConsoleSession?
        do {
            session = try await plain.load(request: request)
        } catch let error as SessionStorage<ConsoleSession>.Error where error == .sessionInvalidType {
            return nil
        }
        guard let session, let key = try await store.apiKey(hash: session.keyHash), !key.isRevoked, key.id == session.keyId,
            let project = configuration.project(id: key.projectId)
        else { return nil }
        return ConsoleUser(caller: APIKeyAuthenticator.Caller(key: key, project: project), session: session, sessionId: id)
    }

    /// Ends the request's session and returns the cookie that clears it.
    func signOut(_ request: Request, secure isSecure: Bool) async throws -> Cookie {
        try await (isSecure ? secure : plain).delete(request: request)
    }

    /// The sign-in form's CSRF cookie (the form carries the same token).
    static func signInCookie(_ token: String, secure: Bool) -> Cookie {
        Cookie(name: signInCookieName, value: token, maxAge: 3600, path: path, secure: secure, httpOnly: true, sameSite: .strict)
    }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Compares two tokens in time that does not depend on where they differ.
    static func sameToken(_ a: String?, _ b: String) -> Bool {
        guard let a, !a.isEmpty, !b.isEmpty else { return false }
        let left = Array(a.utf8)
        let right = Array(b.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }
}
