import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import Synchronization
import Testing

@testable import RelinkStore

/// `sslmode`, `sslrootcert`, `sslcert` and `sslkey` as libpq means them, against a fake PostgreSQL TLS endpoint on
/// loopback that presents a throwaway certificate for `db.other.test` only (`Fixtures/tls`, see its README.txt).
@Suite("PostgreSQL TLS")
struct PostgresTLSTests {
    static let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!.appendingPathComponent("tls")

    static func fixture(_ name: String) -> String {
        fixtures.appendingPathComponent(name).path
    }

    /// A path as a URL query value.
    static func query(_ path: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.remove(charactersIn: "&=+#")
        return path.addingPercentEncoding(withAllowedCharacters: allowed)!
    }

    /// Connects to the fake server, which never lets a connection succeed, and returns the one-line error.
    static func connectionError(_ server: FakeTLSPostgres, _ parameters: String) async throws -> String {
        let url = try DatabaseURL("postgres://u:secret@127.0.0.1:\(server.port)/db?\(parameters)")
        do {
            let store = try await PostgresStore.connect(url, logger: TestStore.logger)
            store.close()
            Issue.record("connected to the fake server")
            return ""
        } catch let error as StoreError {
            let text = "\(error)"
            #expect(!text.contains("\n"), "one line")
            #expect(!text.contains("secret"), "no password")
            return text
        }
    }

    static let certificateWords = ["certificate", "TLS", "verify", "CA"]

    // MARK: Against the fake server

    @Test func verifyFullRefusesACertificateForAnotherHost() async throws {
        let server = try await FakeTLSPostgres.start()
        defer { server.stop() }
        let error = try await Self.connectionError(server, "sslmode=verify-full&sslrootcert=\(Self.query(Self.fixture("ca.pem")))")
        #expect(error.hasPrefix("cannot connect to postgres://u:***@127.0.0.1:\(server.port)/db: "))
        #expect(error.contains("the server's TLS certificate is not valid for host 127.0.0.1 (sslmode=verify-full)"))
        #expect(server.startupMessages == 0, "the client must not talk to a server it does not trust")
    }

    @Test func verifyCAWithAnUnrelatedCAFails() async throws {
        let server = try await FakeTLSPostgres.start()
        defer { server.stop() }
        let otherCA = Self.fixture("other-ca.pem")
        for (mode, shown) in [("verify-ca", "verify-ca"), ("verify-full", "verify-full"), ("require", "require with sslrootcert")] {
            let error = try await Self.connectionError(server, "sslmode=\(mode)&sslrootcert=\(Self.query(otherCA))")
            #expect(
                error.contains(
                    "the server's TLS certificate is not trusted (sslmode=\(shown)): its chain does not lead to the CA certificates in \(otherCA)"))
        }
        #expect(server.startupMessages == 0)
    }

    /// Past TLS, the fake server hangs up: the error is about that, not about a certificate.
    @Test(arguments: ["sslmode=verify-ca&sslrootcert=CA", "sslmode=require&sslrootcert=CA", "sslmode=require", "sslmode=prefer", "sslmode=allow", ""])
    func getsPastTLS(_ parameters: String) async throws {
        let server = try await FakeTLSPostgres.start()
        defer { server.stop() }
        let error = try await Self.connectionError(server, parameters.replacingOccurrences(of: "CA", with: Self.query(Self.fixture("ca.pem"))))
        #expect(error.hasPrefix("cannot connect to postgres://u:***@127.0.0.1:\(server.port)/db: "))
        #expect(error.hasSuffix(": the server closed the connection"))
        for word in Self.certificateWords { #expect(!error.contains(word), "\(error)") }
        #expect(server.startupMessages == 1, "the startup message came through TLS")
    }

    @Test func aServerWithoutTLS() async throws {
        let server = try await FakeTLSPostgres.start(offerTLS: false)
        defer { server.stop() }
        for mode in ["require", "verify-full&sslrootcert=\(Self.query(Self.fixture("ca.pem")))"] {
            let error = try await Self.connectionError(server, "sslmode=\(mode)")
            #expect(error.hasSuffix(": the server does not accept TLS connections (sslmode=\(mode.prefix { $0 != "&" }) needs TLS)"), "\(error)")
        }
        #expect(server.startupMessages == 0)
        // prefer goes on without TLS, as libpq does.
        let error = try await Self.connectionError(server, "sslmode=prefer")
        #expect(error.hasSuffix(": the server closed the connection"), "\(error)")
    }

    @Test func aMissingRootCertificateFileIsAClearErrorBeforeConnecting() async throws {
        let server = try await FakeTLSPostgres.start()
        defer { server.stop() }
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent("relink-no-such-\(UUID()).pem").path
        let url = try DatabaseURL("postgres://u:secret@127.0.0.1:\(server.port)/db?sslmode=verify-ca&sslrootcert=\(Self.query(missing))")
        await #expect {
            try await PostgresStore.connect(url, logger: TestStore.logger)
        } throws: { error in
            "\(error)" == "invalid database URL: sslrootcert file \(missing) does not exist"
        }
        #expect(server.connections == 0, "nothing was sent before the file was checked")
    }

    @Test func clientCertificates() async throws {
        let server = try await FakeTLSPostgres.start(requireClientCertificate: true)
        defer { server.stop() }
        let client = "sslcert=\(Self.query(Self.fixture("client.pem")))&sslkey=\(Self.query(Self.fixture("client.key")))"
        let accepted = try await Self.connectionError(server, "sslmode=verify-ca&sslrootcert=\(Self.query(Self.fixture("ca.pem")))&\(client)")
        for word in Self.certificateWords { #expect(!accepted.contains(word), "\(accepted)") }
        #expect(server.startupMessages == 1)

        let refused = try await Self.connectionError(server, "sslmode=require")
        #expect(refused.hasSuffix(": the server asks for a client certificate (sslmode=require): pass sslcert=PATH&sslkey=PATH"), "\(refused)")
        #expect(server.startupMessages == 1)
    }

    // MARK: Certificate files

    @Test func filesThatAreNotPEMCertificatesAreClearErrors() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("relink-tls-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let text = directory.appendingPathComponent("notes.txt").path
        try Data("not a certificate\n".utf8).write(to: URL(fileURLWithPath: text))
        let encrypted = directory.appendingPathComponent("encrypted.key").path
        try Data("-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n".utf8).write(to: URL(fileURLWithPath: encrypted))
        let (ca, clientCertificate, clientKey, serverKey) =
            (Self.fixture("ca.pem"), Self.fixture("client.pem"), Self.fixture("client.key"), Self.fixture("server.key"))
        for (parameters, message) in [
            ("sslmode=verify-full&sslrootcert=\(text)", "sslrootcert file \(text) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
            ("sslmode=verify-full&sslrootcert=\(directory.path)", "sslrootcert \(directory.path) is a directory, not a PEM file"),
            ("sslmode=verify-ca&sslrootcert=\(clientKey)", "sslrootcert file \(clientKey) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
            ("sslmode=require&sslcert=\(text)&sslkey=\(clientKey)", "sslcert file \(text) holds no PEM certificate (-----BEGIN CERTIFICATE-----)"),
            ("sslmode=require&sslcert=\(clientCertificate)&sslkey=\(ca)", "sslkey file \(ca) holds no PEM private key (-----BEGIN PRIVATE KEY-----)"),
            (
                "sslmode=require&sslcert=\(clientCertificate)&sslkey=\(directory.path)/none.key",
                "sslkey file \(directory.path)/none.key does not exist"
            ),
            (
                "sslmode=require&sslcert=\(clientCertificate)&sslkey=\(encrypted)",
                "sslkey file \(encrypted) is encrypted, and sslpassword is not supported"
            ),
            (
                "sslmode=require&sslcert=\(clientCertificate)&sslkey=\(serverKey)",
                "the key in sslkey file \(serverKey) does not belong to the certificate in sslcert file \(clientCertificate)"
            ),
        ] {
            let url = try DatabaseURL("postgres://u:secret@db.internal/db?" + parameters.replacingOccurrences(of: " ", with: "%20"))
            #expect {
                try url.tlsSettings()
            } throws: { error in
                let text = "\(error)"
                return text.hasPrefix("invalid database URL: \(message)") && !text.contains("\n")
            }
        }
    }

    /// libpq's default: verify-ca and verify-full without sslrootcert use ~/.postgresql/root.crt, or fail saying so.
    @Test func verifyModesDefaultToTheRootCertificateInTheHomeDirectory() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("relink-home-\(UUID())")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let rootFile = home.appendingPathComponent(".postgresql/root.crt").path

        let full = try DatabaseURL("postgres://u@db.internal/db?sslmode=verify-full")
        #expect {
            try full.tlsSettings(homeDirectory: home.path)
        } throws: { error in
            "\(error)"
                == "invalid database URL: sslmode=verify-full verifies the server's certificate against a CA certificate: pass sslrootcert=PATH (a PEM file) or sslrootcert=system, or put it in \(rootFile), which does not exist"
        }
        let ca = try DatabaseURL("postgres://u@db.internal/db?sslmode=verify-ca")
        #expect {
            try ca.tlsSettings(homeDirectory: home.path)
        } throws: { error in
            "\(error)"
                == "invalid database URL: sslmode=verify-ca verifies the server's certificate against a CA certificate: pass sslrootcert=PATH (a PEM file), or put it in \(rootFile), which does not exist"
        }
        // require without sslrootcert never verifies, so it does not need the file.
        #expect(try DatabaseURL("postgres://u@db.internal/db?sslmode=require").tlsSettings(homeDirectory: home.path).verification == .none)

        try FileManager.default.createDirectory(at: home.appendingPathComponent(".postgresql"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.fixture("ca.pem"), toPath: rootFile)
        let settings = try full.tlsSettings(homeDirectory: home.path)
        #expect(settings.roots == "the CA certificates in \(rootFile)")
        #expect(settings.verification == .chainAndHostName)
        #expect(try ca.tlsSettings(homeDirectory: home.path).verification == .chain)
    }

    @Test(arguments: [
        ("sslmode=disable", DatabaseURL.TLSSettings.Use.never, DatabaseURL.TLSSettings.Verification.none, CertificateVerification.none),
        ("sslmode=allow", .ifOffered, .none, .none),
        ("sslmode=prefer", .ifOffered, .none, .none),
        ("", .ifOffered, .none, .none),
        ("sslmode=require", .always, .none, .none),
        ("sslmode=require&sslrootcert=CA", .always, .chain, .noHostnameVerification),
        ("sslmode=verify-ca&sslrootcert=CA", .always, .chain, .noHostnameVerification),
        ("sslmode=verify-full&sslrootcert=CA", .always, .chainAndHostName, .fullVerification),
        ("sslmode=verify-full&sslrootcert=system", .always, .chainAndHostName, .fullVerification),
        ("sslrootcert=system", .always, .chainAndHostName, .fullVerification),
    ])
    func whatEachModeVerifies(
        _ parameters: String, _ use: DatabaseURL.TLSSettings.Use, _ verification: DatabaseURL.TLSSettings.Verification,
        _ nioVerification: CertificateVerification
    ) throws {
        let ca = Self.fixture("ca.pem")
        let bundles = ["/etc/ssl/certs/ca-certificates.crt", "/etc/pki/tls/certs/ca-bundle.crt", "/etc/ssl/cert.pem"]
        if parameters.contains("system"), !bundles.contains(where: FileManager.default.fileExists(atPath:)) { return }  // no system CAs here
        let url = try DatabaseURL("postgres://u@db.internal/db?" + parameters.replacingOccurrences(of: "CA", with: Self.query(ca)))
        let settings = try url.tlsSettings(homeDirectory: "/nonexistent")
        #expect(settings.use == use)
        #expect(settings.verification == verification)
        if use != .never { #expect(settings.configuration.certificateVerification == nioVerification) }
        switch verification {
        case .none: #expect(settings.roots == nil)
        case .chain, .chainAndHostName:
            #expect(settings.roots == (parameters.contains("system") ? "the system's trusted CAs" : "the CA certificates in \(ca)"))
            let system = settings.configuration.trustRoots == .default
            #expect(system == parameters.contains("system"))
        }
    }

    // MARK: Parsing

    @Test(arguments: [
        ("", DatabaseURL.TLSMode.prefer, DatabaseURL.RootCertificates?.none),
        ("sslmode=disable", .disable, nil),
        ("sslmode=allow", .prefer, nil),
        ("sslmode=prefer", .prefer, nil),
        ("sslmode=require", .require, nil),
        ("sslmode=verify-ca", .verifyCA, nil),
        ("sslmode=verify-full", .verifyFull, nil),
        ("sslmode=require&sslrootcert=/etc/ca.pem", .require, .file("/etc/ca.pem")),
        ("sslmode=verify-ca&sslrootcert=/etc/ca.pem", .verifyCA, .file("/etc/ca.pem")),
        ("sslrootcert=/etc/ca.pem&sslmode=verify-full", .verifyFull, .file("/etc/ca.pem")),
        ("sslmode=verify-full&sslrootcert=certs/ca%20bundle.pem", .verifyFull, .file("certs/ca bundle.pem")),
        ("sslmode=verify-full&sslrootcert=system", .verifyFull, .system),
        ("sslrootcert=system", .verifyFull, .system),
    ])
    func parsesSSLModeAndRootCertificate(_ parameters: String, _ mode: DatabaseURL.TLSMode, _ roots: DatabaseURL.RootCertificates?) throws {
        let url = try DatabaseURL("postgres://u:secret@db.internal/db?" + parameters)
        #expect(url.tls == mode)
        #expect(url.rootCertificates == roots)
        #expect(url.clientCertificate == nil)
        #expect(url.description == "postgres://u:***@db.internal:5432/db")
    }

    @Test func parsesClientCertificates() throws {
        let url = try DatabaseURL("postgres://u@db.internal/db?sslmode=verify-full&sslrootcert=/ca.pem&sslcert=/c.pem&sslkey=/c.key")
        #expect(url.clientCertificate == DatabaseURL.ClientCertificate(certificatePath: "/c.pem", keyPath: "/c.key"))
        #expect(try DatabaseURL("postgres://u@db.internal/db?sslkey=/c.key&sslcert=/c.pem").clientCertificate?.keyPath == "/c.key")
    }

    @Test(arguments: [
        ("sslmode=verify", "sslmode must be disable, allow, prefer, require, verify-ca or verify-full, not 'verify'"),
        ("sslrootcert=", "sslrootcert must be the path of a PEM file or 'system'"),
        (
            "sslmode=disable&sslrootcert=/ca.pem",
            "sslrootcert needs sslmode=require, verify-ca or verify-full: with sslmode=disable the server's certificate is never checked"
        ),
        ("sslmode=prefer&sslrootcert=/ca.pem", "sslrootcert needs sslmode=require, verify-ca or verify-full: with sslmode=prefer"),
        ("sslmode=allow&sslrootcert=/ca.pem", "with sslmode=allow"),
        ("sslrootcert=/ca.pem", "with sslmode=prefer"),
        ("sslmode=verify-ca&sslrootcert=system", "sslrootcert=system needs sslmode=verify-full, not 'verify-ca'"),
        ("sslmode=require&sslrootcert=system", "sslrootcert=system needs sslmode=verify-full, not 'require'"),
        ("sslmode=prefer&sslrootcert=system", "sslrootcert=system needs sslmode=verify-full, not 'prefer'"),
        ("sslmode=require&sslcert=/c.pem", "sslcert and sslkey must be given together"),
        ("sslmode=require&sslkey=/c.key", "sslcert and sslkey must be given together"),
        ("sslmode=require&sslcert=&sslkey=/c.key", "sslcert must be the path of a PEM file"),
        ("sslmode=disable&sslcert=/c.pem&sslkey=/c.key", "sslcert and sslkey need TLS, but sslmode=disable"),
        ("sslpassword=x", "unknown parameter 'sslpassword' (known: sslmode, sslrootcert, sslcert, sslkey, schema, pool_max_conns, wait_timeout)"),
        ("sslcrl=/crl.pem", "unknown parameter 'sslcrl'"),
    ])
    func rejectsBadTLSParameters(_ parameters: String, _ reason: String) {
        #expect {
            try DatabaseURL("postgres://u:secret@db.internal/db?" + parameters)
        } throws: { error in
            guard case .invalidDatabaseURL(let why) = error as? StoreError else { return false }
            return why.contains(reason) && !why.contains("secret")
        }
    }
}

/// A fake PostgreSQL server that speaks only the start of the protocol: it answers the SSLRequest with `S`, does
/// the TLS handshake as `db.other.test` (optionally asking for a client certificate signed by the test CA), counts
/// the startup message the client then sends through TLS, and hangs up.
final class FakeTLSPostgres: Sendable {
    private let channel: any Channel
    private let counters: Counters
    let port: Int

    final class Counters: Sendable {
        let connections = Mutex(0)
        let startupMessages = Mutex(0)
    }

    /// TCP connections accepted.
    var connections: Int { counters.connections.withLock { $0 } }
    /// Clients that finished the TLS handshake and sent their startup message through it.
    var startupMessages: Int { counters.startupMessages.withLock { $0 } }

    private init(channel: any Channel, counters: Counters) {
        self.channel = channel
        self.counters = counters
        self.port = channel.localAddress!.port!
    }

    /// `offerTLS: false` answers the SSLRequest with `N` (no TLS) and hangs up at the plain startup message.
    static func start(requireClientCertificate: Bool = false, offerTLS: Bool = true) async throws -> FakeTLSPostgres {
        let fixture = PostgresTLSTests.fixture
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(fixture("server.pem")).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: fixture("server.key"), format: .pem)))
        if requireClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(fixture("ca.pem")))
        }
        let context = try NIOSSLContext(configuration: configuration)
        let counters = Counters()
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .childChannelInitializer { channel in
                counters.connections.withLock { $0 += 1 }
                return channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(SSLRequestHandler(context: offerTLS ? context : nil, counters: counters))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return FakeTLSPostgres(channel: channel, counters: counters)
    }

    func stop() {
        channel.close(promise: nil)
    }

    /// Reads the 8-byte SSLRequest, answers `S` in plain text and puts TLS in its own place.
    private final class SSLRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let context: NIOSSLContext?
        let counters: Counters
        var received = ByteBuffer()

        init(context: NIOSSLContext?, counters: Counters) {
            self.context = context
            self.counters = counters
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var bytes = unwrapInboundIn(data)
            received.writeBuffer(&bytes)
            guard received.readableBytes >= 8 else { return }
            // SSLRequest: Int32 length 8, Int32 code 80877103.
            guard received.readInteger(as: UInt32.self) == 8, received.readInteger(as: UInt32.self) == 80_877_103 else {
                context.close(promise: nil)
                return
            }
            guard let sslContext = self.context else {
                context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "N")), promise: nil)
                received = ByteBuffer()
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
                _ = try? context.pipeline.syncOperations.addHandler(StartupHandler(counters: nil))
                return
            }
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: "S")), promise: nil)
            do {
                let tls = NIOSSLServerHandler(context: sslContext)
                try context.pipeline.syncOperations.addHandler(tls, position: .first)
                try context.pipeline.syncOperations.addHandler(StartupHandler(counters: counters), position: .after(tls))
                context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
            } catch {
                context.close(promise: nil)
            }
        }
    }

    /// After TLS: counts the client's startup message and hangs up; closes on any error (a refused certificate).
    /// Without TLS (`counters` nil), just hangs up at the startup message.
    private final class StartupHandler: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        let counters: Counters?
        var counted = false

        init(counters: Counters?) {
            self.counters = counters
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if !counted {
                counted = true
                counters?.startupMessages.withLock { $0 += 1 }
            }
            context.close(promise: nil)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
