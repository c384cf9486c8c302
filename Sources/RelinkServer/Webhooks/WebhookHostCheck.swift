import RelinkCore

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

    /// The addresses `getaddrinfo` reads a numeric host as, without looking anything up: the same parser the
    /// sender's resolver runs first; empty for a name. A scoped IPv6 address (`fe80::1%eth0`) is checked without its
    /// zone.
    static func numericAddresses(_ host: String) -> [IPAddress] {
        var addresses: [IPAddress] = []
        for text in SystemHostResolver.lookUp(host, numericOnly: true) {
            let address = IPAddress(String(decoding: text.utf8.prefix { $0 != UInt8(ascii: "%") }, as: UTF8.self))
            if let address, !addresses.contains(address) { addresses.append(address) }
        }
        return addresses
    }
}
