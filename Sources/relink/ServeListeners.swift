import Foundation
import NIOCore
import RelinkServer

#if canImport(Glibc)
import Glibc
#endif

/// The addresses `relink serve` listens on: the main port, and the console's and the metrics' own ports when asked
/// for. They are checked before the server starts, so that a port in use is reported as one line naming its
/// listener, before the server says it listens: the server's own failure names none.
struct ServeListeners {
    struct Listener: Equatable {
        /// "the server", "the console", "the metrics": what the message names.
        var name: String
        var option: String
        var host: String
        var port: Int
    }

    var listeners: [Listener]

    init(host: String, port: Int, console: ConsoleEndpoint, metrics: MetricsEndpoint) {
        listeners = [Listener(name: "the server", option: "--port", host: host, port: port)]
        if case .port(let host, let port) = console {
            listeners.append(Listener(name: "the console", option: "--console-port", host: host, port: port))
        }
        if case .port(let host, let port, _) = metrics {
            listeners.append(Listener(name: "the metrics", option: "--metrics-port", host: host, port: port))
        }
    }

    /// - Throws: a usage error when two listeners ask for the same port on overlapping addresses (0, any free port,
    ///   excepted): one of them could never listen. The same port on two distinct addresses is a valid layout (the
    ///   links on a public address, the console on loopback).
    func checkDistinctPorts() throws(CLIError) {
        for (index, listener) in listeners.enumerated() where listener.port != 0 {
            if let earlier = listeners[..<index].first(where: { $0.port == listener.port && Self.overlap($0.host, listener.host) }) {
                throw CLIError.usage(Self.collision(listener, earlier))
            }
        }
    }

    /// The usage error for `listener` asking for `earlier`'s port on an overlapping address.
    static func collision(_ listener: Listener, _ earlier: Listener) -> String {
        let advice = "give each listener a port of its own, or an address of its own"
        if earlier.host == listener.host {
            return "\(listener.option) \(listener.port) is \(earlier.option) too, on the same address \(listener.host); \(advice)"
        }
        let wildcard = [earlier.host, listener.host].compactMap(address).contains(where: isWildcard)
        let why = wildcard ? ", and 0.0.0.0 or :: takes the port on every address" : ", the same address"
        return "\(listener.option) \(listener.port) on \(listener.host) is \(earlier.option) on \(earlier.host) too\(why); \(advice)"
    }

    /// Whether sockets bound to `first` and `second` on one port would collide: the same address once resolved as the
    /// server resolves it, or either one a wildcard (0.0.0.0 or ::, which on Linux take the port on every address,
    /// IPv4 and IPv6 alike). A name that does not resolve is compared as written; `checkAvailable` reports it.
    static func overlap(_ first: String, _ second: String) -> Bool {
        guard let one = address(first), let other = address(second) else { return first.lowercased() == second.lowercased() }
        return one == other || isWildcard(one) || isWildcard(other)
    }

    /// `host` resolved as the server binds it, as text (IPv4-mapped IPv6 addresses as their IPv4 address, which they
    /// share a port with); nil when it does not resolve.
    static func address(_ host: String) -> String? {
        guard let ip = (try? SocketAddress.makeAddressResolvingHost(host, port: 0))?.ipAddress?.lowercased() else { return nil }
        let mapped = "::ffff:"
        if ip.hasPrefix(mapped), ip.dropFirst(mapped.count).contains(".") { return String(ip.dropFirst(mapped.count)) }
        return ip
    }

    static func isWildcard(_ address: String) -> Bool { address == "0.0.0.0" || address == "::" }

    /// - Throws: one line naming the first listener whose address cannot be bound now, and why.
    func checkAvailable() throws(CLIError) {
        for listener in listeners {
            if let problem = Self.bindProblem(host: listener.host, port: listener.port) {
                throw CLIError(message: "could not serve \(listener.name) on \(listener.host):\(listener.port): \(problem)")
            }
        }
    }

    /// The message for the server failing once started: the listener whose address cannot be bound now (the others
    /// were let go when it stopped), or the error with every address when none can be told.
    func failure(_ error: any Error) -> CLIError {
        do {
            try checkAvailable()
        } catch {
            return error
        }
        let addresses = listeners.map { "\($0.host):\($0.port)" }.joined(separator: ", ")
        return CLIError(message: "could not serve on \(addresses): \(error)")
    }

    /// Why a listening socket cannot be bound to `host`:`port`, nil when it can: the address is resolved and bound
    /// as the server does it (with SO_REUSEADDR), and the socket closed at once.
    static func bindProblem(host: String, port: Int) -> String? {
        guard port != 0 else { return nil }
        let address: SocketAddress
        do {
            address = try SocketAddress.makeAddressResolvingHost(host, port: port)
        } catch {
            return "cannot resolve '\(host)'"
        }
        let family = address.protocol.rawValue
        #if canImport(Glibc)
        let descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        let bound = address.withSockAddr { pointer, size in bind(descriptor, pointer, socklen_t(size)) }
        guard bound != 0 else { return nil }
        return String(cString: strerror(errno))
    }
}
