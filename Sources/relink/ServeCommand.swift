import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkServer
import ServiceLifecycle
import UnixSignals

#if canImport(Glibc)
import Glibc
#endif

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Relink service.",
        discussion: """
            Defaults work from a fresh clone: ./routes.json and ./relink.sqlite (created and migrated), listening on \
            127.0.0.1:8080. Several instances share one PostgreSQL database with --database postgres://…. Flags override the \
            environment (RELINK_CONFIG, RELINK_HOST, RELINK_PORT, RELINK_DATABASE_URL, RELINK_DB, RELINK_SECRET, RELINK_SECRET_FILE, RELINK_PREVIOUS_SECRET, RELINK_PREVIOUS_SECRET_FILE, RELINK_TRUST_FORWARDED_HEADERS, RELINK_TRUSTED_PROXIES, RELINK_FORWARDED_HEADER, RELINK_LOG_LEVEL, RELINK_LOG_FORMAT, RELINK_METRICS_TOKEN), \
            which overrides the defaults. SIGTERM or SIGINT shut down gracefully, within --shutdown-timeout.
            """
    )

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @Option(help: "The address to listen on (default: $RELINK_HOST, else 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on, 0 for any free one (default: $RELINK_PORT, else 8080).")
    var port: Int?

    @Flag(
        help:
            "Read the client's address, host and scheme from the header a proxy sets: only behind one (or $RELINK_TRUST_FORWARDED_HEADERS=1, true, yes or on; 0, false, no or off is the default)."
    )
    var trustForwardedHeaders = false

    @Option(
        help: ArgumentHelp(
            "The proxies whose forwarded headers count, as comma-separated CIDR networks (default: $RELINK_TRUSTED_PROXIES, else loopback and private networks). Needs --trust-forwarded-headers.",
            valueName: "cidr,…"))
    var trustedProxies: String?

    @Option(
        help: ArgumentHelp(
            "The header the proxy sets: forwarded, x-forwarded-for or x-real-ip (default: $RELINK_FORWARDED_HEADER, else x-forwarded-for). Needs --trust-forwarded-headers.",
            valueName: "header"))
    var forwardedHeader: String?

    @Option(help: "trace, debug, info, notice, warning, error or critical (default: $RELINK_LOG_LEVEL, else info).")
    var logLevel: String?

    @Option(
        help: ArgumentHelp(
            "Networks that link-preview fetches may reach although they are not public, as comma-separated CIDR networks (default: $RELINK_FETCH_ALLOW_NETWORKS, else none: loopback, private and link-local addresses are refused).",
            valueName: "cidr,…"))
    var fetchAllowNetworks: String?

    @Option(
        help: ArgumentHelp(
            "The header a trusted proxy sets to the client's country code, for link rules (CF-IPCountry; default: $RELINK_COUNTRY_HEADER, else none). Needs --trust-forwarded-headers: it is read only from a trusted proxy.",
            valueName: "header"))
    var countryHeader: String?

    @Option(
        help: ArgumentHelp(
            "A MaxMind-format country database (GeoLite2-Country.mmdb, …) for link rules, read with libmaxminddb (apt-get install libmaxminddb0; default: $RELINK_GEOIP).",
            valueName: "file"))
    var geoip: String?

    @Option(help: ArgumentHelp("Seconds a connection may sit without a request before it is closed.", valueName: "seconds"))
    var idleTimeout: Int = 60

    @Option(
        help: ArgumentHelp(
            "Seconds a client may take to send a request's head once it has begun, so trickling clients cannot hold connections.",
            valueName: "seconds"))
    var headerTimeout: Int = 10

    @Option(help: ArgumentHelp("Seconds a client may take to send a request's body after its head.", valueName: "seconds"))
    var bodyTimeout: Int = 10

    @Option(
        help: ArgumentHelp(
            "Seconds a stop (SIGTERM, SIGINT) may take: requests still running then are cut, and what the store has not taken a second later is given up and counted in the last log line.",
            valueName: "seconds"))
    var shutdownTimeout: Int = 10

    @Option(
        help: ArgumentHelp(
            "Seconds a response may wait for a client that does not read it before the connection is closed.",
            valueName: "seconds"))
    var sendTimeout: Int = 10

    @Option(
        help: ArgumentHelp(
            "The most connections open at once; past it new ones are closed at once (default: 10000, within the process's file limit).",
            valueName: "count"))
    var maxConnections: Int?

    @Option(
        help: ArgumentHelp(
            "Per-client rate limits count an IPv6 client by this prefix of its address, 32 to 128.", valueName: "bits"))
    var ipv6LimitPrefix: Int = 64

    @Option(
        help: ArgumentHelp(
            "Clicks one client network (an IPv4 address, an IPv6 --ipv6-limit-prefix) may leave for deferred linking in each "
                + "project, a second, with a burst of 100 seconds' worth; past it clicks are redirected and counted, not kept.",
            valueName: "clicks"))
    var keptClicksPerNetwork: Int = 10

    @Option(help: "text (the default) or json: one JSON object a line, with the request id (default: $RELINK_LOG_FORMAT).")
    var logFormat: String?

    @Option(help: ArgumentHelp("Serve /metrics (Prometheus) on this port of --metrics-host only (default: not served).", valueName: "port"))
    var metricsPort: Int?

    @Option(help: ArgumentHelp("The address the metrics port listens on (default: 127.0.0.1); only with --metrics-port.", valueName: "address"))
    var metricsHost: String?

    @Option(
        help: ArgumentHelp(
            "Require 'Authorization: Bearer <token>' for /metrics; without --metrics-port, /metrics is then served on the main port (default: $RELINK_METRICS_TOKEN).",
            valueName: "token"))
    var metricsToken: String?

    @Option(
        help: ArgumentHelp(
            "Serve the web console on this port of --console-host instead of under /console on the main port (default: the main port).",
            valueName: "port"))
    var consolePort: Int?

    @Option(help: ArgumentHelp("The address the console port listens on (default: 127.0.0.1); only with --console-port.", valueName: "address"))
    var consoleHost: String?

    @Flag(help: "Serve no web console (/console is then a link path like any other).")
    var noConsole = false

    @Flag(
        help:
            "Answer every click through the router, none on the lean path for links in memory (the same answers, slower; for comparing the two)."
    )
    var noLeanClicks = false

    @Option(
        help: ArgumentHelp(
            "The most short links kept in memory for clicks, a few hundred bytes each (the \(LinkCache.defaultHotCapacity) last clicked also kept resolved); past it the oldest give way, and a click on one reads the database (default: $RELINK_LINK_CACHE, else \(LinkCache.defaultCapacity)).",
            valueName: "entries"))
    var linkCache: Int?

    @OptionGroup var store: StoreOptions

    @Option(
        help: ArgumentHelp(
            "The file holding the secret client addresses are hashed with, created (mode 0600) when absent (default: $RELINK_SECRET_FILE, else $XDG_CONFIG_HOME/relink/secret, else ~/.config/relink/secret). $RELINK_SECRET, when set, is the secret itself.",
            valueName: "file"))
    var secretFile: String?

    @Option(
        help: ArgumentHelp(
            "The secret before a rotation: clicks hashed with it still match until they expire (default: $RELINK_PREVIOUS_SECRET_FILE, else <secret file>.previous when it exists; or $RELINK_PREVIOUS_SECRET).",
            valueName: "file"))
    var previousSecretFile: String?

    @Option(
        help: ArgumentHelp(
            "Local development: this project's links also answer on localhost, 127.0.0.1 and [::1], so a browser on this machine opens them (default: $RELINK_DEV_HOST). Only with a loopback --host.",
            valueName: "project"))
    var devHost: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        Self.holdMallocMmapThreshold(environment)
        let relink = try ConfigurationFile.load(ConfigurationFile.path(config))
        let portText = port.map(String.init) ?? environment["RELINK_PORT"] ?? "8080"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw CLIError.usage("port must be a number from 0 to 65535, got '\(portText)'")
        }
        let levelText = logLevel ?? environment["RELINK_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw CLIError.usage("unknown log level '\(levelText)'")
        }
        guard (1...86_400).contains(idleTimeout) else { throw CLIError.usage("--idle-timeout must be 1 to 86400 seconds, got \(idleTimeout)") }
        guard (1...3_600).contains(headerTimeout) else {
            throw CLIError.usage("--header-timeout must be 1 to 3600 seconds, got \(headerTimeout)")
        }
        guard (1...3_600).contains(bodyTimeout) else { throw CLIError.usage("--body-timeout must be 1 to 3600 seconds, got \(bodyTimeout)") }
        guard (1...3_600).contains(sendTimeout) else { throw CLIError.usage("--send-timeout must be 1 to 3600 seconds, got \(sendTimeout)") }
        guard (1...3_600).contains(shutdownTimeout) else {
            throw CLIError.usage("--shutdown-timeout must be 1 to 3600 seconds, got \(shutdownTimeout)")
        }
        let connections = try Self.connectionLimit(asked: maxConnections)
        guard (32...128).contains(ipv6LimitPrefix) else {
            throw CLIError.usage("--ipv6-limit-prefix must be 32 to 128 bits, got \(ipv6LimitPrefix)")
        }
        guard (1...100_000).contains(keptClicksPerNetwork) else {
            throw CLIError.usage("--kept-clicks-per-network must be 1 to 100000 a second, got \(keptClicksPerNetwork)")
        }
        let format = (logFormat ?? environment["RELINK_LOG_FORMAT"] ?? "text").lowercased()
        switch format {
        case "text": Self.bootstrapLogging { label in TextLogHandler(label: label) }
        case "json": Self.bootstrapLogging { label in JSONLogHandler(label: label) }
        default: throw CLIError.usage("--log-format must be text or json, got '\(format)'")
        }
        let metrics = try Self.metricsEndpoint(port: metricsPort, host: metricsHost, token: metricsToken ?? environment["RELINK_METRICS_TOKEN"])
        let forwardedHeaders = try Self.forwardedHeaderPolicy(
            trust: trustForwardedHeaders, trustedProxies: trustedProxies, forwardedHeader: forwardedHeader, environment: environment)
        var fetchPolicy = OutboundAddressPolicy()
        if let text = fetchAllowNetworks ?? environment["RELINK_FETCH_ALLOW_NETWORKS"], !text.isEmpty {
            switch IPNetwork.parseList(text) {
            case .success(let networks): fetchPolicy.allowed = networks
            case .failure(let entry): throw CLIError.usage("--fetch-allow-networks: \(entry.description)")
            }
        }
        let listenHost = host ?? environment["RELINK_HOST"] ?? "127.0.0.1"
        let developmentProject = try Self.developmentProject(
            devHost ?? environment["RELINK_DEV_HOST"], listenHost: listenHost, behindProxy: forwardedHeaders != .none, relink: relink)
        let console = try Self.consoleEndpoint(port: consolePort, host: consoleHost, disabled: noConsole)
        let listeners = ServeListeners(host: listenHost, port: port, console: console, metrics: metrics)
        try listeners.checkDistinctPorts()
        let secretFile = secretFile ?? environment["RELINK_SECRET_FILE"]
        let previousSecretFile = previousSecretFile ?? environment["RELINK_PREVIOUS_SECRET_FILE"]
        try Self.checkNotDirectory(secretFile, option: self.secretFile != nil ? "--secret-file" : "RELINK_SECRET_FILE")
        try Self.checkNotDirectory(
            previousSecretFile, option: self.previousSecretFile != nil ? "--previous-secret-file" : "RELINK_PREVIOUS_SECRET_FILE")
        try listeners.checkAvailable()
        let database = try await store.open(logLevel: level, creating: true)
        defer { StoreOptions.close(database) }
        let secrets: AddressHashSecrets
        do {
            let notes: [String]
            (secrets, notes) = try await AddressHashSecrets.load(
                .init(
                    secret: environment["RELINK_SECRET"], secretFile: secretFile, previousSecret: environment["RELINK_PREVIOUS_SECRET"],
                    previousSecretFile: previousSecretFile),
                store: database)
            var logger = Logger(label: "relink")
            logger.logLevel = level
            for note in notes { logger.notice("\(note)") }
            for (path, message) in relink.routeWarnings() { logger.warning("\(path): \(message)") }
        } catch let failure as SecretFile.Failure {
            throw CLIError(message: failure.description)
        } catch {
            throw CLIError(message: "cannot read the secrets from \(store.path): \(error)")
        }
        var server = ServerConfiguration(
            host: listenHost, port: port, relink: relink,
            forwardedHeaders: forwardedHeaders, logLevel: level, idleTimeout: .seconds(idleTimeout), headerTimeout: .seconds(headerTimeout),
            bodyTimeout: .seconds(bodyTimeout), sendTimeout: .seconds(sendTimeout), maxConnections: connections,
            ipv6PrefixLength: ipv6LimitPrefix, metrics: metrics, store: database,
            addressHashSecrets: secrets)
        server.fetchPolicy = fetchPolicy
        server.developmentProject = developmentProject
        server.leanClicks = !noLeanClicks
        server.keptClicksPerNetwork = RateLimit(requestsPerSecond: Double(keptClicksPerNetwork), burst: keptClicksPerNetwork * 100)
        server.console = console
        if let text = linkCache.map(String.init) ?? environment["RELINK_LINK_CACHE"], !text.isEmpty {
            guard let entries = Int(text), (16...100_000_000).contains(entries) else {
                throw CLIError.usage("--link-cache must be 16 to 100000000 entries, got '\(text)'")
            }
            server.linkCacheCapacity = entries
        }
        if let file = geoip ?? environment["RELINK_GEOIP"], !file.isEmpty {
            do {
                server.countryDatabase = try CountryDatabase(path: file)
            } catch {
                throw CLIError(message: error.description)
            }
        }
        if let header = countryHeader ?? environment["RELINK_COUNTRY_HEADER"], !header.isEmpty {
            guard header.utf8.count <= 64, header.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
                throw CLIError.usage("--country-header must be a header name, got '\(header)'")
            }
            guard case .trusting = server.forwardedHeaders else {
                throw CLIError.usage(
                    "--country-header needs --trust-forwarded-headers (or RELINK_TRUST_FORWARDED_HEADERS=1): it is read only from a trusted proxy")
            }
            server.countryHeader = header
        }
        let backlog = StoreBacklog()
        let deadline = ShutdownDeadline(timeout: .seconds(shutdownTimeout))
        server.backlog = backlog
        server.shutdownDeadline = deadline
        let app = try buildApplication(configuration: server)
        var logger = Logger(label: "relink")
        logger.logLevel = level
        var group = ServiceGroupConfiguration(
            services: [app, ShutdownWatchdog(deadline: deadline, backlog: backlog, logger: logger)],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past the deadline, what still runs is cancelled: requests are cut, and store waits give up.
        group.maximumGracefulShutdownDuration = deadline.timeout
        do {
            try await ServiceGroup(configuration: group).run()
        } catch is CancellationError where deadline.instant != nil {
            // The deadline cut what still ran (a request waiting for its body, a store that does not answer): the
            // stop ends as planned, and its line says what it could not write.
        } catch {
            throw listeners.failure(error)
        }
        let began = deadline.instant.map { $0 - deadline.timeout } ?? .now
        logger.notice("\(backlog.stopMessage(after: .now - began, deadline: deadline.timeout))")
    }

    /// `--dev-host`'s project, checked: one of the configuration's, and only on a server that listens on loopback (a
    /// server others reach must pick a project by its real host names alone).
    static func developmentProject(
        _ asked: String?, listenHost: String, behindProxy: Bool, relink: RelinkConfiguration
    ) throws(CLIError) -> String? {
        guard let asked, !asked.isEmpty else { return nil }
        guard relink.project(id: asked) != nil else {
            throw CLIError.usage("--dev-host: no project '\(asked)' in the configuration (\(relink.projects.map(\.id).joined(separator: ", ")))")
        }
        guard ["127.0.0.1", "::1", "localhost"].contains(listenHost.lowercased()) else {
            throw CLIError.usage("--dev-host is for local development: it needs a loopback --host (127.0.0.1, ::1 or localhost), not '\(listenHost)'")
        }
        // Behind a proxy, a client's own Host (localhost) would reach it from anywhere.
        guard !behindProxy else {
            throw CLIError.usage("--dev-host is for local development, not behind a proxy: it cannot go with --trust-forwarded-headers")
        }
        return asked
    }

    /// The connection limit: as asked, or 10,000; never more than the open-file limit allows (raised to its hard
    /// limit first), leaving room for the database, logs and the listeners themselves.
    static func connectionLimit(asked: Int?) throws -> Int {
        if let asked, asked < 1 { throw CLIError.usage("--max-connections must be at least 1, got \(asked)") }
        var files = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files) == 0 else { return asked ?? 10_000 }
        if files.rlim_cur < files.rlim_max {
            files.rlim_cur = files.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
            _ = getrlimit(Int32(RLIMIT_NOFILE.rawValue), &files)
        }
        let room = Int(clamping: files.rlim_cur) - 64
        guard let asked else { return max(16, min(10_000, room)) }
        guard asked <= room else {
            throw CLIError.usage("--max-connections \(asked) exceeds what the open-file limit allows (\(room)); raise `ulimit -n`")
        }
        return asked
    }

    /// A boolean variable: 1/0, true/false, yes/no or on/off in any case, spaces around it ignored; nil when unset or
    /// empty.
    /// - Throws: a usage error for any other value, which would otherwise be taken silently for one or the other.
    static func boolean(_ name: String, _ environment: [String: String]) throws(CLIError) -> Bool? {
        guard let text = environment[name] else { return nil }
        switch text.trimmingCharacters(in: .whitespacesAndNewlines).lowercased() {
        case "": return nil
        case "1", "true", "yes", "on": return true
        case "0", "false", "no", "off": return false
        default: throw CLIError.usage("\(name) must be 1, true, yes or on, or 0, false, no or off; got '\(text)'")
        }
    }

    /// A secret file that is a directory is refused by name (the secret reader's message would be about its mode).
    static func checkNotDirectory(_ path: String?, option: String) throws(CLIError) {
        var isDirectory: ObjCBool = false
        guard let path, FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return }
        throw CLIError.usage("\(option) \(path) is a directory; give the file that holds the secret (created when absent)")
    }

    /// Where the console goes: the main port, its own port, or nowhere.
    static func consoleEndpoint(port: Int?, host: String?, disabled: Bool) throws -> ConsoleEndpoint {
        if disabled {
            guard port == nil else { throw CLIError.usage("--no-console and --console-port cannot go together") }
            return .disabled
        }
        guard let port else {
            // Said rather than ignored: whoever gives it means the console to listen there.
            if host != nil { throw CLIError.usage("--console-host has no effect without --console-port") }
            return .mainPort
        }
        guard (0...65535).contains(port) else { throw CLIError.usage("--console-port must be 0 to 65535, got \(port)") }
        return .port(host: host ?? "127.0.0.1", port: port)
    }

    /// Where /metrics goes: its own port, the main port behind a token, or nowhere.
    static func metricsEndpoint(port: Int?, host: String?, token: String?) throws -> MetricsEndpoint {
        let token = token.flatMap { $0.isEmpty ? nil : $0 }
        if let token, token.utf8.count < 16 { throw CLIError.usage("--metrics-token must be at least 16 characters") }
        if let port {
            guard (0...65535).contains(port) else { throw CLIError.usage("--metrics-port must be 0 to 65535, got \(port)") }
            return .port(host: host ?? "127.0.0.1", port: port, token: token)
        }
        if host != nil { throw CLIError.usage("--metrics-host has no effect without --metrics-port") }
        return token.map { .token($0) } ?? .disabled
    }

    /// The forwarded-header options and their variables as one policy, parsed once at startup. The proxy list and
    /// header kind without trust are usage errors, as is a network or header name that does not parse.
    static func forwardedHeaderPolicy(
        trust flag: Bool, trustedProxies: String?, forwardedHeader: String?, environment: [String: String]
    ) throws -> ForwardedHeaderPolicy {
        let trust = try flag || Self.boolean("RELINK_TRUST_FORWARDED_HEADERS", environment) == true
        // Each setting with where it came from, for the error messages.
        typealias Setting = (name: String, text: String)
        let proxies: Setting? =
            trustedProxies.map { ("--trusted-proxies", $0) } ?? environment["RELINK_TRUSTED_PROXIES"].map { ("RELINK_TRUSTED_PROXIES", $0) }
        let header: Setting? =
            forwardedHeader.map { ("--forwarded-header", $0) } ?? environment["RELINK_FORWARDED_HEADER"].map { ("RELINK_FORWARDED_HEADER", $0) }
        guard trust else {
            if let setting = proxies ?? header {
                throw CLIError.usage("\(setting.name) has no effect without --trust-forwarded-headers (or RELINK_TRUST_FORWARDED_HEADERS=1)")
            }
            return .none
        }
        var networks = IPNetwork.loopbackAndPrivate
        if let proxies {
            switch IPNetwork.parseList(proxies.text) {
            case .success(let parsed): networks = parsed
            case .failure(let entry): throw CLIError.usage("\(proxies.name): \(entry)")
            }
        }
        var kind = ForwardedHeaderKind.xForwardedFor
        if let header {
            guard let parsed = ForwardedHeaderKind(rawValue: header.text.lowercased()) else {
                throw CLIError.usage("\(header.name) must be forwarded, x-forwarded-for or x-real-ip, got '\(header.text)'")
            }
            kind = parsed
        }
        return .trusting(TrustedProxies(networks), header: kind)
    }
}

extension ServeCommand {
    private static let loggingBootstrapped = NIOLockedValueBox(false)

    /// swift-log allows one bootstrap per process; a process serves once, but tests run the command many times.
    static func bootstrapLogging(_ factory: @escaping @Sendable (String) -> any LogHandler) {
        let first = loggingBootstrapped.withLockedValue { done in
            defer { done = true }
            return !done
        }
        if first { LoggingSystem.bootstrap(factory) }
    }

    /// glibc's malloc serves a block over 128 KB from its own mapping, returned on free, but raises that threshold
    /// (up to 32 MB) each time such a block is freed. A server's once-a-second batches (a second's event counters,
    /// clicks and their statement arguments) then come from the heap, between the link cache's long-lived entries,
    /// and the holes they leave are never given back. A fixed threshold (which also stops the raising) keeps large
    /// blocks in their mappings, returned when freed, so the batches leave no free heap behind
    /// (docs/performance.md#the-malloc-threshold).
    /// An operator's own `GLIBC_TUNABLES` setting of the threshold wins.
    static func holdMallocMmapThreshold(_ environment: [String: String]) {
        #if canImport(Glibc)
        // `mallopt` is declared in <malloc.h>, which Swift's Glibc module leaves out; M_MMAP_THRESHOLD is -3.
        guard !(environment["GLIBC_TUNABLES"] ?? "").contains("mmap_threshold"),
            let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
        else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(-3, 256 * 1024)
        #endif
    }
}
