import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdAuth
import RelinkCore
import RelinkStore

/// Console sign-in state: hummingbird-auth's `SessionStorage` over `ConsoleSessionDriver`, an HttpOnly,
/// SameSite=Strict cookie, and the sign-in form's own CSRF token. Over plain http (development) the cookies are scoped
/// to /console; over https they are `Secure` and named `__Host-…` (path /, no domain), so no sibling subdomain or other
/// port can plant one.
struct ConsoleSessions: Sendable {
    static let cookieName = "relink_console"
    static let signInCookieName = "relink_console_signin"
    static let path = "/console"
    /// How long a sign-in form may wait before it is posted.
    static let signInLifetime: TimeInterval = 3600

    static func cookieName(secure: Bool) -> String { secure ? "__Host-" + cookieName : cookieName }
    static func signInCookieName(secure: Bool) -> String { secure ? "__Host-" + signInCookieName : signInCookieName }
    static func cookiePath(secure: Bool) -> String { secure ? "/" : path }
    /// How long a session lasts.
    static let lifetime = Duration.seconds(12 * 3600)

    let store: any RelinkStore
    let configuration: RelinkConfiguration
    private let plain: SessionStorage<ConsoleSession>
    private let secure: SessionStorage<ConsoleSession>
    /// Signs the sign-in form's tokens, so that only tokens this service issued (on any of its instances) pass.
    private let signInKey: SymmetricKey

    /// - Parameter secret: the deployment's shared secret (the address-hashing one), from which the sign-in tokens'
    ///   key is derived; every instance derives the same key, and it never sits in the database.
    init(store: any RelinkStore, configuration: RelinkConfiguration, secret: String) {
        self.store = store
        self.configuration = configuration
        signInKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(secret.utf8)), info: Data("relink console sign-in".utf8), outputByteCount: 32)
        let driver = ConsoleSessionDriver(store: store)
        func storage(secure: Bool) -> SessionStorage<ConsoleSession> {
            SessionStorage(
                driver,
                configuration: SessionStorageConfiguration(
                    sessionCookieParameters: SessionCookieParameters(
                        name: Self.cookieName(secure: secure), path: Self.cookiePath(secure: secure), secure: secure, sameSite: .strict),
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
    /// - Parameter secure: whether the request came over https (its cookie then has the `__Host-` name).
    func user(of request: Request, secure isSecure: Bool) async throws -> ConsoleUser? {
        let storage = isSecure ? secure : plain
        guard let id = storage.getId(request: request), !id.isEmpty, id.utf8.count <= 128 else { return nil }
        let session: ConsoleSession?
        do {
            session = try await storage.load(request: request)
        } catch let error as SessionStorage<ConsoleSession>.Error where error == .sessionInvalidType {
            return nil
        }
        guard let session, let key = try await store.apiKey(hash: session.keyHash), !key.isRevoked, key.id == session.keyId,
            let project = configuration.project(id: key.projectId)
        else { return nil }
        return ConsoleUser(caller: APIKeyAuthenticator.Caller(key: key, project: project), session: session, sessionId: id)
    }

    /// Ends the request's session and returns the cookie that clears it.
    /// - Throws: `SignOutUnfinished` when the store could not end the session, with the cookie that clears it all the
    ///   same: whoever signs out leaves no session behind in the browser, even during an outage.
    func signOut(_ request: Request, secure isSecure: Bool) async throws -> Cookie {
        do {
            return try await (isSecure ? secure : plain).delete(request: request)
        } catch {
            throw SignOutUnfinished(clearing: Self.clearingCookie(secure: isSecure), cause: error)
        }
    }

    /// A sign-out whose session the store could not end: it ends by itself at its expiry (`lifetime`).
    struct SignOutUnfinished: Error {
        /// Clears the session's cookie in the browser.
        let clearing: Cookie
        let cause: any Error
    }

    /// The cookie that clears a session's cookie in the browser.
    static func clearingCookie(secure: Bool) -> Cookie {
        Cookie(
            name: cookieName(secure: secure), value: "", maxAge: 0, path: cookiePath(secure: secure), secure: secure, httpOnly: true,
            sameSite: .strict)
    }

    /// The sign-in form's CSRF cookie (the form carries the same token).
    static func signInCookie(_ token: String, secure: Bool) -> Cookie {
        Cookie(
            name: signInCookieName(secure: secure), value: token, maxAge: Int(signInLifetime), path: cookiePath(secure: secure), secure: secure,
            httpOnly: true, sameSite: .strict)
    }

    /// A new sign-in token: when it expires, random bytes, and this service's HMAC of both.
    func signInToken(now: Date = Date()) -> String {
        let body = "\(Int(now.timeIntervalSince1970 + Self.signInLifetime)).\(Self.randomToken())"
        return body + "." + Self.base64URL(Data(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: signInKey)))
    }

    /// Whether `token` is one this service issued and has not expired.
    func isValidSignInToken(_ token: String, now: Date = Date()) -> Bool {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard token.utf8.count <= 200, parts.count == 3, let expiry = Int(parts[0]), Double(expiry) > now.timeIntervalSince1970,
            Double(expiry) <= now.timeIntervalSince1970 + Self.signInLifetime + 60,
            let mac = Self.data(base64URL: String(parts[2])),
            // Only the MAC's own spelling: base64's last digit has unused bits, so other texts decode to the same MAC
            // (a test that changed the last digit was refused only most of the time).
            Self.base64URL(mac) == parts[2]
        else { return false }
        return HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: Data("\(parts[0]).\(parts[1])".utf8), using: signInKey)
    }

    /// 32 random bytes, base64url.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func data(base64URL text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
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
