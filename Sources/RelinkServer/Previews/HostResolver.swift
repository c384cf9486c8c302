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

    static func lookUp(_ host: String) -> [String] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
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
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            if current.pointee.ai_family == AF_INET, let address = current.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin_addr
                    _ = inet_ntop(AF_INET, &raw, &buffer, socklen_t(buffer.count))
                }
            } else if current.pointee.ai_family == AF_INET6, let address = current.pointee.ai_addr {
                address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    var raw = pointer.pointee.sin6_addr
                    _ = inet_ntop(AF_INET6, &raw, &buffer, socklen_t(buffer.count))
                }
            }
            let text = String(cString: buffer)
            if !text.isEmpty, !addresses.contains(text) { addresses.append(text) }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
