import Foundation
import NIOSSL

/// A PostgreSQL connection URL, as libpq spells it:
/// `postgres://user:password@host:5432/database?sslmode=verify-full&sslrootcert=/etc/relink/db-ca.pem&schema=relink`.
///
/// TLS follows libpq (see `docs/deployment.md`): `sslmode` says whether TLS is used and what is checked,
/// `sslrootcert` names the CA certificates the server's certificate must lead to (`system` for the system's trusted
/// CAs), and `sslcert`/`sslkey` give a client certificate.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum TLSMode: String, Sendable {
        /// No TLS.
        case disable
        /// TLS when the server offers it, without verifying its certificate (libpq's default). libpq's `allow` means
        /// the same here.
        case prefer
        /// TLS or fail, encrypting only: the certificate is not verified, unless `sslrootcert` is given, when the
        /// chain is verified as with `verifyCA` (as libpq does when it has a root certificate file).
        case require
        /// TLS, and the server's certificate chain must lead to a CA in `sslrootcert`; the host name is not checked.
        case verifyCA = "verify-ca"
        /// TLS, the chain must lead to a CA in `sslrootcert` (or the system's, with `sslrootcert=system`), and the
        /// certificate must name the host connected to.
        case verifyFull = "verify-full"
    }

    /// Where the trusted CA certificates are (`sslrootcert`).
    public enum RootCertificates: Sendable, Equatable {
        /// `sslrootcert=system`: the system's trusted CAs. Only with `verify-full`, as in libpq.
        case system
        /// A file of PEM certificates.
        case file(String)
    }

    /// A client certificate (`sslcert`) and its private key (`sslkey`), both PEM files.
    public struct ClientCertificate: Sendable, Equatable {
        public var certificatePath: String
        public var keyPath: String
    }

    public var host: String
    public var port: Int
    public var user: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// `sslrootcert`; nil when not given, when `verify-ca` and `verify-full` use `~/.postgresql/root.crt`.
    public var rootCertificates: RootCertificates?
    /// `sslcert` and `sslkey`; nil for none.
    public var clientCertificate: ClientCertificate?
    /// The schema (search_path) Relink's tables live in; nil for the server's default (`public`).
    public var schema: String?
    public var maximumConnections: Int
    /// How long a request waits for the database (a connection from the pool and its query) before it is answered
    /// 503: `wait_timeout` in seconds, 1 by default. Batched writes of events and clicks wait up to 30 s.
    public var requestWait: Duration

    /// Parses a URL; the error says what is wrong without repeating the password. Reads no files: the certificate
    /// files are read by `tlsSettings()`, before connecting.
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
        rootCertificates = nil
        clientCertificate = nil
        schema = nil
        maximumConnections = 20
        requestWait = .seconds(1)
        var sslmode: String?
        var sslcert: String?
        var sslkey: String?
        for item in components.queryItems ?? [] {
            let value = item.value ?? ""
            switch item.name {
            case "sslmode":
                switch value {
                case "disable": tls = .disable
                case "allow", "prefer": tls = .prefer
                case "require": tls = .require
                case "verify-ca": tls = .verifyCA
                case "verify-full": tls = .verifyFull
                default:
                    throw invalid("sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not '\(value)'")
                }
                sslmode = value
            case "sslrootcert":
                guard !value.isEmpty else { throw invalid("sslrootcert must be the path of a PEM file or 'system'") }
                rootCertificates = value == "system" ? .system : .file(value)
            case "sslcert", "sslkey":
                guard !value.isEmpty else { throw invalid("\(item.name) must be the path of a PEM file") }
                if item.name == "sslcert" { sslcert = value } else { sslkey = value }
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
            case "wait_timeout":
                guard let seconds = Double(value), (0.05...60).contains(seconds) else {
                    throw invalid("wait_timeout must be a number of seconds from 0.05 to 60, not '\(value)'")
                }
                requestWait = .milliseconds(Int(seconds * 1000))
            case "application_name", "connect_timeout":
                continue
            default:
                throw invalid(
                    "unknown parameter '\(item.name)' (known: sslmode, sslrootcert, sslcert, sslkey, schema, pool_max_conns, wait_timeout)")
            }
        }
        switch rootCertificates {
        case .system:
            // As libpq: the system's roots vouch for any name a public CA signed, so only a host-name check makes
            // them mean anything; sslrootcert=system makes verify-full the default and refuses weaker modes.
            if let sslmode, tls != .verifyFull {
                throw invalid(
                    "sslrootcert=system needs sslmode=verify-full, not '\(sslmode)': any public CA can sign a certificate, "
                        + "so only the host name check makes the system's CAs meaningful")
            }
            tls = .verifyFull
        case .file:
            if tls == .disable || tls == .prefer {
                throw invalid(
                    "sslrootcert needs sslmode=require, verify-ca or verify-full: with sslmode=\(sslmode ?? "prefer") "
                        + "the server's certificate is never checked")
            }
        case nil:
            break
        }
        switch (sslcert, sslkey) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            guard tls != .disable else { throw invalid("sslcert and sslkey need TLS, but sslmode=disable") }
            clientCertificate = ClientCertificate(certificatePath: certificate, keyPath: key)
        default:
            throw invalid(
                "sslcert and sslkey must be given together (the files ~/.postgresql/postgresql.crt and .key are not looked for)")
        }
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        let credentials = password == nil ? user : "\(user):***"
        let hostText = host.contains(":") ? "[\(host)]" : host
        return "postgres://\(credentials)@\(hostText):\(port)/\(database)" + (schema.map { "?schema=\($0)" } ?? "")
    }
}

extension DatabaseURL {
    /// What `sslmode`, `sslrootcert`, `sslcert` and `sslkey` come to, with their files read.
    struct TLSSettings: Sendable {
        enum Use: Sendable, Equatable {
            case never, ifOffered, always
        }

        enum Verification: Sendable, Equatable {
            /// Encryption only: any certificate is accepted.
            case none
            /// The chain must lead to a trusted CA; the host name is not checked (verify-ca).
            case chain
            /// The chain and the host name (verify-full).
            case chainAndHostName
        }

        var use: Use
        var verification: Verification
        /// The trusted CAs in words, for messages: "the CA certificates in /path" or "the system's trusted CAs".
        var roots: String?
        var configuration: TLSConfiguration
    }

    /// Reads the certificate files and makes the TLS configuration; throws `StoreError.invalidDatabaseURL` naming
    /// the file when one is missing or holds no usable PEM certificate or key. `homeDirectory` (for
    /// `~/.postgresql/root.crt`) defaults to the user's.
    func tlsSettings(homeDirectory: String? = nil) throws(StoreError) -> TLSSettings {
        var configuration = TLSConfiguration.makeClientConfiguration()
        let use: TLSSettings.Use
        let verification: TLSSettings.Verification
        switch tls {
        case .disable:
            return TLSSettings(use: .never, verification: .none, roots: nil, configuration: configuration)
        case .prefer: (use, verification) = (.ifOffered, .none)
        case .require: (use, verification) = (.always, rootCertificates == nil ? .none : .chain)
        case .verifyCA: (use, verification) = (.always, .chain)
        case .verifyFull: (use, verification) = (.always, .chainAndHostName)
        }
        var roots: String?
        switch verification {
        case .none:
            configuration.certificateVerification = .none
        case .chain, .chainAndHostName:
            configuration.certificateVerification = verification == .chain ? .noHostnameVerification : .fullVerification
            let source: RootCertificates
            if let rootCertificates { source = rootCertificates } else { source = try defaultRootCertificates(homeDirectory: homeDirectory) }
            switch source {
            case .system:
                configuration.trustRoots = .default
                roots = "the system's trusted CAs"
            case .file(let path):
                configuration.trustRoots = .certificates(try Self.certificates(in: path, parameter: "sslrootcert"))
                roots = "the CA certificates in \(path)"
            }
        }
        if let client = clientCertificate {
            let chain = try Self.certificates(in: client.certificatePath, parameter: "sslcert")
            configuration.certificateChain = chain.map { .certificate($0) }
            configuration.privateKey = .privateKey(try Self.privateKey(in: client.keyPath))
        }
        // BoringSSL checks the whole configuration (a key that is not the certificate's, say) before any connection.
        do {
            _ = try NIOSSLContext(configuration: configuration)
        } catch NIOSSLError.failedToLoadPrivateKey where clientCertificate != nil {
            let client = clientCertificate ?? ClientCertificate(certificatePath: "", keyPath: "")
            throw .invalidDatabaseURL(
                "the key in sslkey file \(client.keyPath) does not belong to the certificate in sslcert file \(client.certificatePath)")
        } catch  where roots == "the system's trusted CAs" {
            throw .invalidDatabaseURL("sslrootcert=system: cannot load the system's trusted CAs (is ca-certificates installed?): \(error)")
        } catch {
            throw .invalidDatabaseURL("cannot use these TLS settings: \(error)")
        }
        return TLSSettings(use: use, verification: verification, roots: roots, configuration: configuration)
    }

    /// libpq's default for verify-ca and verify-full without `sslrootcert`: `~/.postgresql/root.crt`, if it exists.
    private func defaultRootCertificates(homeDirectory: String?) throws(StoreError) -> RootCertificates {
        let home = homeDirectory ?? FileManager.default.homeDirectoryForCurrentUser.path
        let path = URL(fileURLWithPath: home).appendingPathComponent(".postgresql/root.crt").path
        guard FileManager.default.fileExists(atPath: path) else {
            let choices = tls == .verifyFull ? "sslrootcert=PATH (a PEM file) or sslrootcert=system" : "sslrootcert=PATH (a PEM file)"
            throw .invalidDatabaseURL(
                "sslmode=\(tls.rawValue) verifies the server's certificate against a CA certificate: pass \(choices), or put it in \(path), which does not exist"
            )
        }
        return .file(path)
    }

    /// The PEM certificates in a file, or an error naming the file and what is wrong with it.
    static func certificates(in path: String, parameter: String) throws(StoreError) -> [NIOSSLCertificate] {
        let bytes = try contents(of: path, parameter: parameter)
        guard let certificates = try? NIOSSLCertificate.fromPEMBytes(bytes), !certificates.isEmpty else {
            throw .invalidDatabaseURL("\(parameter) file \(path) holds no PEM certificate (-----BEGIN CERTIFICATE-----)")
        }
        return certificates
    }

    /// The unencrypted PEM private key in `sslkey`'s file.
    static func privateKey(in path: String) throws(StoreError) -> NIOSSLPrivateKey {
        let bytes = try contents(of: path, parameter: "sslkey")
        if String(decoding: bytes, as: UTF8.self).contains("ENCRYPTED") {
            throw .invalidDatabaseURL(
                "sslkey file \(path) is encrypted, and sslpassword is not supported; decrypt it with `openssl pkey -in \(path) -out NEW-FILE`")
        }
        do {
            return try NIOSSLPrivateKey(bytes: bytes, format: .pem)
        } catch {
            throw .invalidDatabaseURL("sslkey file \(path) holds no PEM private key (-----BEGIN PRIVATE KEY-----)")
        }
    }

    private static func contents(of path: String, parameter: String) throws(StoreError) -> [UInt8] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .invalidDatabaseURL("\(parameter) file \(path) does not exist")
        }
        guard !isDirectory.boolValue else { throw .invalidDatabaseURL("\(parameter) \(path) is a directory, not a PEM file") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .invalidDatabaseURL("cannot read \(parameter) file \(path) (permissions?)")
        }
        return Array(data)
    }
}
