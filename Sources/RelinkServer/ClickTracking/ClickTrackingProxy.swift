import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore

/// Requests to an email service's tracking upstream, for the tracking domain's clicks (`ClickTrackingMiddleware`) and
/// for an app that was opened by a tracking URL (`unwrap`): the upstream is the configuration's, never the request's.
struct ClickTrackingProxy: Sendable {
    let directory: DomainDirectory
    let fetcher: SafeFetcher
    /// Redirects between tracking domains followed when unwrapping, before the first link outside them.
    static let maximumHops = 3
    /// Requests to upstreams at once: each may hold an answer of up to the fetcher's 1 MB. Past it a click or an
    /// unwrap is answered 503 at once.
    var maximumForwards = 256
    private let running = NIOLockedValueBox(0)
    /// Where requests that got no answer to pass on are counted (`relink_click_tracking_errors_total`).
    let metrics: RelinkMetrics?
    /// Which failures are logged: an upstream's first of each kind in 10 seconds, with a count. A client can send the
    /// loop mark at will, and an email service that is down fails every click of a campaign.
    let failureLog = ThrottledLog<String>()

    /// Why a request to an upstream got no answer to pass on: `relink_click_tracking_errors_total`'s `reason`.
    enum ErrorReason: String {
        /// No complete answer within the fetcher's timeout.
        case timeout
        /// No connection, or one that broke, or an answer over the caps.
        case unreachable
        /// The upstream's address is one fetches refuse (private, loopback, …) and no allowance covers it.
        case refusedAddress = "refused_address"
        /// All `maximumForwards` places were taken.
        case busy
        /// An interim (1xx) answer where a final one was due.
        case badAnswer = "bad_answer"
        /// The request came back from an upstream: it carries Relink's own `CDN-Loop` mark.
        case loop
    }

    /// What Relink adds to `CDN-Loop` (RFC 8586) on every request to an upstream. An upstream whose name or address
    /// leads back to Relink (a DNS alias, another listener) cannot be seen in the configuration, but the request that
    /// comes back carries the mark and is refused at once: without it one click went round until all places were taken.
    static let loopMark = "relink"

    /// Whether `values` (a request's `CDN-Loop` lines) name Relink: the request is one of its own coming back.
    static func carriesLoopMark(_ values: [String]) -> Bool {
        values.contains { value in
            value.split(separator: ",").contains { element in
                let id = RequestOrigin.trimmingWhitespace(element.split(separator: ";", maxSplits: 1).first ?? "")
                return DomainDirectory.asciiLowercased(String(id)) == loopMark
            }
        }
    }

    init(directory: DomainDirectory, fetcher: SafeFetcher, metrics: RelinkMetrics? = nil) {
        self.directory = directory
        self.fetcher = fetcher
        self.metrics = metrics
    }

    /// Takes one of the `maximumForwards` places; false when all are taken (counted as `busy`). `leave()` gives it back.
    func enter() -> Bool {
        let entered = running.withLockedValue { count in
            guard count < maximumForwards else { return false }
            count += 1
            return true
        }
        if !entered { metrics?.clickTrackingError(ErrorReason.busy.rawValue) }
        return entered
    }

    func leave() {
        running.withLockedValue { $0 -= 1 }
    }

    /// Sends a request for `target` (a path and query) on `tracking`'s domain to its upstream.
    /// - Parameters:
    ///   - headers: the client's headers to pass on.
    ///   - clientAddress: the client's address, for the service's `X-Forwarded-For`.
    ///   - scheme: how the client reached Relink, for `X-Forwarded-Proto`.
    func forward(
        _ tracking: ClickTrackingHost, method: HTTPMethod, target: String, headers: [(name: String, value: String)], body: ByteBuffer?,
        clientAddress: String?, scheme: String
    ) async throws(SafeFetcher.FetchError) -> SafeFetcher.ForwardedAnswer {
        guard target.hasPrefix("/") else { throw .badURL(target) }
        let url = tracking.upstream.description + target
        guard !SafeFetcher.hasDotSegments(url) else { throw .notAllowed("the path has . or .. segments") }
        var headers = headers
        if let clientAddress { headers.append(("X-Forwarded-For", clientAddress)) }
        headers.append(("X-Forwarded-Proto", scheme))
        headers.append(("X-Forwarded-Host", tracking.host))
        headers.append(("CDN-Loop", Self.loopMark))
        do {
            return try await fetcher.forward(
                method: method, url: url, host: tracking.sendsTrackingHost ? tracking.host : tracking.upstream.hostAndPort, headers: headers,
                body: body)
        } catch {
            let reason: ErrorReason? =
                switch error {
                case .timedOut: .timeout
                case .refusedAddress: .refusedAddress
                case .noAddress, .failed, .status, .tooManyRedirects, .notHTML: .unreachable
                // The request's own fault (a path with dot segments), not the service's.
                case .badURL, .notAllowed: nil
                }
            if let reason { metrics?.clickTrackingError(reason.rawValue) }
            throw error
        }
    }

    /// The link a tracking URL leads to: the service is asked once, as the tapped link would have been (it counts the
    /// click), and its redirect is read, not followed, past the tracking domains. Nil when `url` is not on a
    /// tracking domain.
    /// - Throws: `APIError` 404 when the service does not redirect, 400 for a URL with dot segments, 503 when the service
    ///   cannot be asked.
    func unwrap(_ url: String, clientAddress: String?, userAgent: String?, logger: Logger) async throws -> String? {
        guard var current = URLComponents(string: url), let host = current.host, directory.clickTracking(host: hostKey(current, host)) != nil
        else { return nil }
        guard enter() else {
            throw APIError(status: .serviceUnavailable, message: "Too many tracking links are being followed at once; try again.")
        }
        defer { leave() }
        for _ in 0...Self.maximumHops {
            guard let host = current.host, let (_, tracking) = directory.clickTracking(host: hostKey(current, host)) else {
                return current.string
            }
            let target =
                (current.percentEncodedPath.isEmpty ? "/" : current.percentEncodedPath)
                + (current.percentEncodedQuery.map { "?" + $0 } ?? "")
            let answer: SafeFetcher.ForwardedAnswer
            do {
                answer = try await forward(
                    tracking, method: .GET, target: target, headers: userAgent.map { [("User-Agent", $0)] } ?? [], body: nil,
                    clientAddress: clientAddress, scheme: "https")
            } catch .notAllowed(let reason) {
                // Dot segments (in the URL, or a tracking URL the service redirects to): no outage of the service.
                throw APIError.invalidArgument("The tracking URL \(url.leadingScalars(300)) cannot be followed: \(reason).")
            } catch {
                // The reason stays in the log: it can name the upstream's address, and anyone may call this API.
                if let line = failureLog.line("\(tracking.upstream) unwrap", "click tracking: \(tracking.upstream): \(error)") {
                    logger.warning("\(line)")
                }
                throw APIError(status: .serviceUnavailable, message: "The email service behind \(tracking.host) could not be asked.")
            }
            guard (300...399).contains(answer.status),
                let location = answer.headers.first(where: { $0.name.lowercased() == "location" })?.value,
                let next = URL(string: location, relativeTo: current.url)?.absoluteURL,
                let components = URLComponents(url: next, resolvingAgainstBaseURL: true)
            else {
                throw APIError.notFound("Dynamic Link Not Found: the email service answered \(url.leadingScalars(300)) without a redirect.")
            }
            current = components
        }
        throw APIError.notFound(
            "Dynamic Link Not Found: \(url.leadingScalars(300)) redirects between tracking domains more than \(Self.maximumHops) times.")
    }

    private func hostKey(_ components: URLComponents, _ host: String) -> String {
        components.port.map { "\(host):\($0)" } ?? host
    }
}
