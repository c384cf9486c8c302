import Foundation
import Hummingbird
import NIOCore
import RelinkCore

/// The request context of every Relink route: Hummingbird's core storage, the peer's address, what
/// `RequestObservingMiddleware` learned of the request (see `learnFacts`), and for the API the caller its key names.
public struct RelinkRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer; behind a proxy this is the proxy (see ``origin`` for the client).
    public let remoteAddress: SocketAddress?
    /// Who sent the request and for which host, as the `ForwardedHeaderPolicy` allows.
    var origin = RequestOrigin.unknown
    /// The network the client's limits count under (`ClientLimiter`).
    var clientNetwork = ClientNetwork.unknown
    /// The client its User-Agent names; worked out for clicks only (see ``detectedClient(_:)``).
    var client: DetectedClient?
    /// The token of `Authorization: Bearer`, on the API and clicks (see `BearerCredential`).
    var bearer: Substring?
    /// Set by `APIKeyMiddleware` when the request names a valid key.
    var caller: APIKeyAuthenticator.Caller?
    /// Set by `ConsoleSessionMiddleware` for a signed-in console user.
    var console: ConsoleUser?
    /// When the request began, for its duration in the metrics.
    let requestStart: ContinuousClock.Instant

    /// Request bodies are read as the API's JSON, with Google's errors.
    public var requestDecoder: APIRequestDecoder { APIRequestDecoder() }

    /// API responses: JSON with slashes unescaped (so URLs read as URLs) and keys sorted.
    public var responseEncoder: JSONEncoder { JSONResponse.encoder }

    /// The caller, for routes that need a key.
    /// - Throws: `APIError.missingKey` when the request named none.
    func requireCaller() throws -> APIKeyAuthenticator.Caller {
        guard let caller else { throw APIError.missingKey }
        return caller
    }

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
        self.requestStart = .now
    }

    /// Request bodies are small JSON documents; anything larger is refused with 413 before it is read.
    public static let maximumBodySize = 64 * 1024
    public var maxUploadSize: Int { Self.maximumBodySize }
}
