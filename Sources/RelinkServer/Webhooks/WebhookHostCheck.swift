import RelinkCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the sender will refuse a webhook's host for, found when it is subscribed and without DNS, so a webhook that
/// can never be delivered is refused at once instead of failing for a day. The host is read as the sender's
/// resolver reads it: a numeric host by `getaddrinfo` itself (which takes `127.1`, `0x7f000001`, `2130706433` and
/// `0177.0.0.1` for 127.0.0.1), `localhost` names as loopback (RFC 6761); each address is checked by the sender's
/// `OutboundAddressPolicy`. Other names can only be told by DNS, so they are checked when sent, as before.
struct WebhookHostCheck: Sendable {
    let policy: OutboundAddressPolicy

    /// Why a webhook to `host` (as the URL spells it, IPv6 in brackets or not) will be refused, or nil when nothing
    /// short of DNS can tell.
    func refusal(_ host: String) -> String? {
        var name = host.lowercased()
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        // A name with a trailing dot is the same host to a resolver (`localhost.`, `127.0.0.1.`).
        if name.utf8.count > 1, name.hasSuffix(".") { name.removeLast() }
        let addresses = Self.isLocalhost(name) ? Self.loopback : Self.numericAddresses(name)
        for address in addresses {
            guard let reason = policy.refusal(address) else { continue }
            let spelling = host.utf8.count > 100 ? String(decoding: host.utf8.prefix(100), as: UTF8.self) + "…" : host
            return spelling == address.description ? reason : "\(reason), spelled \(spelling)"
        }
        return nil
    }

    /// `localhost` and the names under it, which resolvers answer with loopback addresses of either family.
    static func isLocalhost(_ name: String) -> Bool {
        name == "localhost" || name.hasSuffix(".localhost")
    }

    static let loopback = [IPAddress("127.0.0.1"), IPAddress("::1")].compactMap { $0 }

    /// The addresses `getaddrinfo` reads a numeric host as, without looking anything up (`AI_NUMERICHOST`): the
    /// same parser the sender's resolver runs first; empty for a name.
    static func numericAddresses(_ host: String) -> [IPAddress] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_flags = AI_NUMERICHOST
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &result) == 0, let first = result else { return [] }
        defer { freeaddrinfo(first) }
        var addresses: [IPAddress] = []
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let current = entry {
            var buffer = [CChar](repeating: 0, count: 64)
            if let address = current.pointee.ai_addr,
                getnameinfo(address, current.pointee.ai_addrlen, &buffer, socklen_t(buffer.count), nil, 0, NI_NUMERICHOST) == 0
            {
                // A scoped IPv6 address (`fe80::1%eth0`) is checked without its zone.
                let text = buffer.prefix { $0 != 0 && $0 != CChar(UInt8(ascii: "%")) }.map { UInt8(bitPattern: $0) }
                if let parsed = IPAddress(String(decoding: text, as: UTF8.self)), !addresses.contains(parsed) { addresses.append(parsed) }
            }
            entry = current.pointee.ai_next
        }
        return addresses
    }
}
