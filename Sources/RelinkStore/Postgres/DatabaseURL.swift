import Foundation

/// A PostgreSQL connection URL, as libpq spells it:
/// `postgres://user:password@host:5432/database?sslmode=prefer&schema=relink`.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without verifying its certificate (libpq's default).
        case prefer
        /// TLS or fail, without verifying the certificate.
        case require
        /// TLS with the certificate verified against the system's roots and the host name.
        case verifyFull = "verify-full"
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The schema (search_path) Relink's tables live in; nil for the server's default (`public`).
    public var schema: String?
    public var maximumConnections: Int

    /// Parses a URL; the error says what is wrong without repeating the password.
    public init(_ text: String) throws(StoreError) {
        func invalid(_ why: String) -> StoreError { .invalidDatabaseURL(why) }
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw invalid("not a URL; expected postgres://user:password@host:5432/database")
        }
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://, not \(scheme)://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("no host") }
        self.host = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("the port must be 1 to 65535") }
        user = components.percentEncodedUser.flatMap { $0.removingPercentEncoding } ?? "postgres"
        password = components.percentEncodedPassword.flatMap { $0.removingPercentEncoding }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        database = path.isEmpty ? user : path
        guard !database.contains("/") else { throw invalid("the path must be just the database name") }
        tls = .prefer
        schema = nil
        maximumConnections = 20
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                switch value {
                case "disable": tls = .disable
                case "allow", "prefer": tls = .prefer
                case "require", "verify-ca": tls = .require
                case "verify-full": tls = .verifyFull
                default: throw invalid("sslmode must be disable, prefer, require or verify-full, not '\(value)'")
                }
            case "schema", "search_path":
                guard value.range(of: "^[a-z_][a-z0-9_]{0,62}$", options: .regularExpression) != nil else {
                    throw invalid("schema must be a lowercase identifier (a-z, 0-9, _), not '\(value)'")
                }
                schema = value
            case "pool_max_conns", "max_connections":
                guard let count = Int(value), (2...1000).contains(count) else {
                    throw invalid("\(item.name) must be a number from 2 to 1000, not '\(value)'")
                }
                maximumConnections = count
            case "application_name", "connect_timeout":
                continue
            default:
                throw invalid("unknown parameter '\(item.name)' (known: sslmode, schema, pool_max_conns)")
            }
        }
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        let credentials = password == nil ? user : "\(user):***"
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(hostText):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }
}
