import Foundation
import RelinkAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What an app embeds for Relink's links: the deferred link claimed once at first launch, and the links that open
/// the installed app. The Android and JavaScript clients have the same calls and answers
/// (clients/conformance/README.md). Every call answers a value, never throws, and runs off the caller's thread.
public actor Relink {
    /// Timeouts and retries.
    public struct Options: Sendable, Equatable {
        /// Seconds a request may take, connection included.
        public var timeout: TimeInterval
        /// Seconds the client may wait in all for `Retry-After` on 429 and 503 before it gives the error.
        public var retryBudget: TimeInterval

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(timeout: TimeInterval = 10, retryBudget: TimeInterval = 10) {
            self.timeout = timeout
            self.retryBudget = retryBudget
        }
    }

    static let sdkVersion = "relink-swift-1"
    static let installIdKey = "relink.installId"
    static let claimedKey = "relink.claimed"

    /// The project's Relink server, such as `https://go.example.com`.
    public let server: URL
    public let platform: AppPlatform
    /// The app's bundle ID (iOS) or package name (Android), as routes.json lists it.
    public let appId: String
    let storage: any RelinkStorage
    let options: Options
    let transport: RelinkTransport
    /// Set when `server` is not one the client may send device signals to.
    private let serverProblem: RelinkError?
    /// The claim being asked, so that a second caller waits for its answer instead of asking again.
    private var claimInFlight: Task<ClaimResult, Never>?

    /// A client of the project's Relink server.
    /// - Parameters:
    ///   - server: `https://…`; plain `http` only on loopback and at the Android emulator's host (`10.0.2.2`).
    ///   - platform: the app's platform.
    ///   - appId: the app's bundle ID or package name.
    ///   - storage: where the install id and the claim's state are kept across launches.
    ///   - options: timeouts and retries.
    public init(
        server: URL, platform: AppPlatform, appId: String, storage: any RelinkStorage = UserDefaultsStorage(), options: Options = Options()
    ) {
        self.server = server
        self.platform = platform
        self.appId = appId
        self.storage = storage
        self.options = options
        self.serverProblem = Self.problem(with: server) ?? Self.problem(with: options)
        self.transport = RelinkTransport(server: server, options: options)
    }

    /// The deferred deep link: the link the user clicked before installing, asked once per install. The install id
    /// is kept before the first request, so a retry after a timeout or a relaunch is answered as the first request
    /// was; once the server answered, later calls answer `.alreadyClaimed` without a request.
    /// - Parameter request: the device's signals, and the install referrer (Android) or the clipboard's claim link
    ///   (iOS, when the app opted in) for an exact match.
    /// - Returns: the link, an organic install, `.alreadyClaimed`, or why there is no answer this time.
    public func claimDeferredLink(_ request: ClaimRequest = ClaimRequest()) async -> ClaimResult {
        if let claimInFlight { return await claimInFlight.value }
        let claim = Task { await self.claimOnce(request) }
        claimInFlight = claim
        let result = await claim.value
        claimInFlight = nil
        return result
    }

    /// A Relink link opened the installed app (a universal link or App Link): its deep link, counted as a re-open.
    /// - Parameter url: the URL that opened the app.
    /// - Returns: the deep link, the link's campaign and route parameters, or why there is none.
    public func reopen(_ url: String) async -> LinkResult {
        await lookUp(url, countAsReopen: nil)
    }

    /// The deep link of a Relink long link, short link or route, without counting a re-open (a link the app shows
    /// or found, rather than one that opened it).
    /// - Parameter url: the link.
    /// - Returns: the deep link, the link's campaign and route parameters, or why there is none.
    public func resolve(_ url: String) async -> LinkResult {
        await lookUp(url, countAsReopen: false)
    }

    private func claimOnce(_ request: ClaimRequest) async -> ClaimResult {
        if storage.string(forKey: Self.claimedKey) == "1" { return .alreadyClaimed }
        if let serverProblem { return .failed(serverProblem) }
        let body = InstallAttributionRequest(
            platform: platform, appId: appId, installId: installId(), device: request.device, clipboardLink: request.clipboardLink,
            installReferrer: request.installReferrer, sdkVersion: Self.sdkVersion)
        switch await transport.post(APIPath.installAttribution, body, answer: ClaimAnswer.self) {
        case .failure(let error):
            return .failed(error)
        case .success(let answer):
            guard let result = answer.result else {
                return .failed(
                    RelinkError(kind: .malformed, status: 200, message: "the claim's answer has a deep link without a confidence, or the reverse"))
            }
            storage.set("1", forKey: Self.claimedKey)
            return result
        }
    }

    private func lookUp(_ url: String, countAsReopen: Bool?) async -> LinkResult {
        let link = url.trimmingCharacters(in: .whitespaces)
        guard !link.isEmpty else { return .failed(RelinkError(kind: .invalidInput, message: "the link is empty")) }
        if let serverProblem { return .failed(serverProblem) }
        let body = ReopenAttributionRequest(
            requestedLink: link, bundleId: appId, sdkVersion: Self.sdkVersion,
            installId: storage.string(forKey: Self.installIdKey).flatMap { Self.isValidInstallId($0) ? $0 : nil }, countAsReopen: countAsReopen)
        switch await transport.post(APIPath.reopenAttribution, body, answer: LinkAnswer.self) {
        case .failure(let error): return .failed(error)
        case .success(let answer): return .resolved(answer.link)
        }
    }

    /// The install's id: made and kept at the first claim, before its request is sent. A kept id the server would
    /// refuse (written by another SDK, or damaged) is replaced: sent, it would have every claim refused for good.
    private func installId() -> String {
        if let kept = storage.string(forKey: Self.installIdKey), Self.isValidInstallId(kept) { return kept }
        let made = UUID().uuidString
        storage.set(made, forKey: Self.installIdKey)
        return made
    }

    /// Whether the server takes `installId`: 1 to 128 of `A-Z`, `a-z`, `0-9`, `.`, `_` and `-`.
    static func isValidInstallId(_ installId: String) -> Bool {
        (1...128).contains(installId.utf8.count)
            && installId.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                    UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                    true
                default: false
                }
            }
    }

    /// Why the client cannot run with `options`: a timeout that is not a positive number of seconds would fail every
    /// call, a budget that is negative or not finite would wait without end.
    static func problem(with options: Options) -> RelinkError? {
        guard options.timeout.isFinite, options.timeout > 0 else {
            return RelinkError(kind: .invalidInput, message: "the timeout must be a positive number of seconds, not \(options.timeout)")
        }
        guard options.retryBudget.isFinite, options.retryBudget >= 0 else {
            return RelinkError(kind: .invalidInput, message: "the retry budget must be 0 or more seconds, not \(options.retryBudget)")
        }
        return nil
    }

    /// Why the client must not send device signals to `server`, if it must not.
    static func problem(with server: URL) -> RelinkError? {
        // The API's paths are appended to the server's: a query, a fragment or a user would end up in the wrong place.
        if server.query != nil || server.fragment != nil || server.user != nil {
            return RelinkError(
                kind: .invalidInput,
                message: "the server must be a base URL without a query, fragment or user, not '\(server.absoluteString)'")
        }
        let scheme = server.scheme?.lowercased()
        let host = server.host?.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if scheme == "https", host?.isEmpty == false { return nil }
        if scheme == "http", let host, ["localhost", "127.0.0.1", "::1", "10.0.2.2"].contains(host) { return nil }
        return RelinkError(
            kind: .invalidInput,
            message: "the server must be an https URL (plain http only on loopback or 10.0.2.2), not '\(server.absoluteString)'")
    }
}
