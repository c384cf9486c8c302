import Hummingbird
import NIOCore

/// The request context of every Relink route: Hummingbird's core storage plus the peer's address.
public struct RelinkRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The TCP peer; behind a proxy this is the proxy (see `RequestOrigin` for the client).
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies are small JSON documents; anything larger is refused with 413 before it is read.
    public static let maximumBodySize = 64 * 1024
    public var maxUploadSize: Int { Self.maximumBodySize }
}
