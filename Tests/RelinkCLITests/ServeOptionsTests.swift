import ArgumentParser
import Foundation
import RelinkServer
import Testing

@testable import relink

/// `relink serve`'s limits, timeouts, logs and metrics flags: bad values stop it with a one-line usage error before
/// it opens the database or listens.
@Suite("Serve options")
struct ServeOptionsTests {
    static func usageError(_ arguments: [String]) async throws -> String? {
        // A database of its own: a check made after opening it must not open (and create) relink.sqlite where the tests run.
        let database = FileManager.default.temporaryDirectory.appending(path: "relink-serve-options-\(UUID()).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: database + suffix) } }
        let command = try #require(
            try Relink.parseAsRoot(["serve", "--config", EndToEndTests.routes, "--db", database] + arguments) as? ServeCommand)
        do {
            try await command.run()
            return nil
        } catch let error as CLIError {
            #expect(error.exitCode == CLIError.usageExitCode)
            return error.message
        }
    }

    @Test(arguments: [
        (["--header-timeout", "0"], "--header-timeout must be 1 to 3600 seconds"),
        (["--body-timeout", "100000"], "--body-timeout must be 1 to 3600 seconds"),
        (["--shutdown-timeout", "0"], "--shutdown-timeout must be 1 to 3600 seconds"),
        (["--ipv6-limit-prefix", "16"], "--ipv6-limit-prefix must be 32 to 128 bits"),
        (["--log-format", "xml"], "--log-format must be text or json"),
        (["--metrics-token", "short"], "--metrics-token must be at least 16 characters"),
        (["--metrics-port", "70000"], "--metrics-port must be 0 to 65535"),
        (["--dev-host", "nosuch"], "--dev-host: no project 'nosuch'"),
        (["--dev-host", "pictlink", "--host", "0.0.0.0"], "--dev-host is for local development: it needs a loopback --host"),
        (["--dev-host", "pictlink", "--trust-forwarded-headers"], "--dev-host is for local development, not behind a proxy"),
        (["--country-header", "CF-IPCountry"], "--country-header needs --trust-forwarded-headers"),
        (["--metrics-host", "0.0.0.0"], "--metrics-host has no effect without --metrics-port"),
        (["--console-host", "0.0.0.0"], "--console-host has no effect without --console-port"),
    ])
    func badValuesAreUsageErrors(_ arguments: [String], _ message: String) async throws {
        let error = try await Self.usageError(arguments)
        #expect(error?.contains(message) == true, "\(error ?? "no error")")
        #expect(error?.contains("\n") == false)
    }

    @Test func metricsGoWhereTheFlagsSay() throws {
        #expect(try ServeCommand.metricsEndpoint(port: nil, host: nil, token: nil) == .disabled)
        #expect(try ServeCommand.metricsEndpoint(port: nil, host: nil, token: "") == .disabled)
        #expect(try ServeCommand.metricsEndpoint(port: nil, host: nil, token: "0123456789abcdef") == .token("0123456789abcdef"))
        #expect(
            try ServeCommand.metricsEndpoint(port: 9464, host: "0.0.0.0", token: nil) == .port(host: "0.0.0.0", port: 9464, token: nil))
        #expect(try ServeCommand.metricsEndpoint(port: 9464, host: nil, token: nil) == .port(host: "127.0.0.1", port: 9464, token: nil))
    }
}
