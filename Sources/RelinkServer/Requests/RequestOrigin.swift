import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Who sent a request and which host it was for, reading forwarded headers only when the operator says a
/// trusted proxy sets them (otherwise any client could claim any host or address).
struct RequestOrigin: Sendable {
    /// The host the request was for, as in a `Host` header (`go.example.com`, `localhost:8080`).
    var host: String
    /// `https` or `http`.
    var scheme: String
    /// The client's IP address as text, when known.
    var clientAddress: String?

    static let hostField = HTTPField.Name("Host")!
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    init(request: Request, remoteAddress: SocketAddress?, trustForwardedHeaders: Bool) {
        // HTTP/1 moves the Host header into the authority; a Host field remains only when a client (or a test
        // client with a fixed authority) sends one more. Either way the client chose it, so it may pick the host.
        host = request.headers[Self.hostField] ?? request.head.authority ?? ""
        scheme = "http"
        clientAddress = remoteAddress?.ipAddress
        guard trustForwardedHeaders else { return }
        // The proxy appends what it saw, so the last element is the one it vouches for.
        if let forwarded = request.headers[values: Self.forwarded].last?.split(separator: ",").last {
            for pair in forwarded.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2 else { continue }
                let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
                switch parts[0].lowercased() {
                case "host": host = value
                case "proto": scheme = value.lowercased()
                case "for": clientAddress = Self.stripPortAndBrackets(value)
                default: break
                }
            }
        }
        if let value = request.headers[values: Self.forwardedHost].last?.split(separator: ",").last {
            host = value.trimmingCharacters(in: .whitespaces)
        }
        if let value = request.headers[values: Self.forwardedProto].last?.split(separator: ",").last {
            scheme = value.trimmingCharacters(in: .whitespaces).lowercased()
        }
        if let value = request.headers[values: Self.forwardedFor].last?.split(separator: ",").last {
            clientAddress = Self.stripPortAndBrackets(value.trimmingCharacters(in: .whitespaces))
        }
    }

    /// `[2001:db8::1]:443` → `2001:db8::1`, `203.0.113.7:5000` → `203.0.113.7`.
    static func stripPortAndBrackets(_ value: String) -> String {
        if value.hasPrefix("["), let close = value.firstIndex(of: "]") {
            return String(value[value.index(after: value.startIndex)..<close])
        }
        if value.filter({ $0 == ":" }).count == 1, let colon = value.firstIndex(of: ":") {
            return String(value[..<colon])
        }
        return value
    }
}
