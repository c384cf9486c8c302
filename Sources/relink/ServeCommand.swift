import ArgumentParser
import Foundation
import Hummingbird
import Logging
import RelinkCore
import RelinkServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Relink service.",
        discussion: """
            Defaults work from a fresh clone: ./routes.json and ./relink.sqlite (created and migrated), listening on \
            127.0.0.1:8080. Several instances share one PostgreSQL database with --database postgres://…. Flags override the \
            environment (RELINK_CONFIG, RELINK_HOST, RELINK_PORT, RELINK_DATABASE_URL, RELINK_DB, RELINK_SECRET, RELINK_TRUST_FORWARDED_HEADERS, RELINK_LOG_LEVEL), \
            which overrides the defaults. SIGTERM or SIGINT shut down gracefully.
            """
    )

    @Option(help: "The project configuration (default: $RELINK_CONFIG, else routes.json).")
    var config: String?

    @Option(help: "The address to listen on (default: $RELINK_HOST, else 127.0.0.1).")
    var host: String?

    @Option(help: "The port to listen on, 0 for any free one (default: $RELINK_PORT, else 8080).")
    var port: Int?

    @Flag(help: "Trust Forwarded and X-Forwarded-* headers: only behind a proxy that sets them (or $RELINK_TRUST_FORWARDED_HEADERS=1).")
    var trustForwardedHeaders = false

    @Option(help: "trace, debug, info, notice, warning, error or critical (default: $RELINK_LOG_LEVEL, else info).")
    var logLevel: String?

    @OptionGroup var store: StoreOptions

    @Option(help: "The secret for hashing client addresses (default: $RELINK_SECRET, else one kept in the database).")
    var secret: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let configPath = config ?? environment["RELINK_CONFIG"] ?? ConfigurationFile.defaultPath
        let relink = try ConfigurationFile.load(configPath)
        let portText = port.map(String.init) ?? environment["RELINK_PORT"] ?? "8080"
        guard let port = Int(portText), (0...65535).contains(port) else {
            throw CLIError.usage("port must be a number from 0 to 65535, got '\(portText)'")
        }
        let levelText = logLevel ?? environment["RELINK_LOG_LEVEL"] ?? "info"
        guard let level = Logger.Level(rawValue: levelText.lowercased()) else {
            throw CLIError.usage("unknown log level '\(levelText)'")
        }
        let trust = trustForwardedHeaders || ["1", "true", "yes"].contains(environment["RELINK_TRUST_FORWARDED_HEADERS"]?.lowercased() ?? "")
        let database = try await store.open(logLevel: level)
        defer { StoreOptions.close(database) }
        let server = ServerConfiguration(
            host: host ?? environment["RELINK_HOST"] ?? "127.0.0.1", port: port, relink: relink,
            trustForwardedHeaders: trust, logLevel: level, store: database,
            addressHashSecret: secret ?? environment["RELINK_SECRET"])
        let app = try buildApplication(configuration: server)
        do {
            try await app.runService()
        } catch {
            throw CLIError(message: "could not serve on \(server.host):\(server.port): \(error)")
        }
    }
}
