import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a host name into the addresses a fetch may connect to. The fetcher checks every address it gets and
/// connects only to one it checked, so what DNS answers a second time (rebinding) never matters.
public protocol HostResolver: Sendable {
    /// The host's addresses as text (`93.184.216.34`, `2606:2800:220:1::`); empty when it has none.
    func addresses(of host: String) async throws -> [String]
}

/// The system resolver (`getaddrinfo`), run on NIO's blocking thread pool so a slow DNS never holds a task thread.
public struct SystemHostResolver: HostResolver {
    public init() {}

    public func addresses(of host: String) async throws -> [String] {
        try await NIOThreadPool.singleton.runIfActive { Self.lookUp(host) }
    }

    /// - Parameters:
    ///   - host: a name or an address in any spelling `getaddrinfo` reads.
    ///   - numericOnly: read `host` as an address only (`AI_NUMERICHOST`), without looking a name up: empty for a name.
    /// - Returns: the addresses as text, each once.
    static func lookUp(_ host: String, numericOnly: Bool = false) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        if numericOnly { hints.ai_flags = AI_NUMERICHOST }
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [String] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            // The numeric form of each address, without reading sockaddr fields ourselves.
            var buffer = [CChar](repeating: 0, count: 64)
            if let address = current.pointee.ai_addr,
                getnameinfo(address, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
            {
                let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                if !text.isEmpty, !addresses.contains(text) { addresses.append(text) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
