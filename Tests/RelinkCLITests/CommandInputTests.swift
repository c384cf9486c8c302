import Foundation
import RelinkServer
import Testing

@testable import relink

#if canImport(Glibc)
import Glibc
#endif

/// What the attack on the CLI found in its inputs: listeners blamed wrongly, keys with a line break, booleans taken
/// silently, $RELINK_CONFIG ignored, databases made by a typo, and messages that named no path or problem.
@Suite("Command inputs")
struct CommandInputTests {
    typealias M = FirebaseMigrationTests

    /// A socket listening on a free loopback port, as another program's would: its descriptor and port.
    static func listeningSocket() throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 1) == 0 }
        }
        guard bound else { throw CLIError(message: "cannot listen: \(errno)") }
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    static func folder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-inputs-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The console's or the metrics' port in use is named as theirs, before the server says it listens.
    @Test(arguments: ["--console-port", "--metrics-port"])
    func aBusyPortIsNamedByItsListener(option: String) async throws {
        let busy = try Self.listeningSocket()
        defer { close(busy.descriptor) }
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let main = try Self.listeningSocket()
        close(main.descriptor)
        let result = await M.run(
            [
                "serve", "--config", EndToEndTests.routes, "--port", "\(main.port)", option, "\(busy.port)", "--db",
                folder.appending(path: "r.sqlite").path,
            ])
        let name = option == "--console-port" ? "the console" : "the metrics"
        #expect(result.error?.message.hasPrefix("could not serve \(name) on 127.0.0.1:\(busy.port): ") == true, "\(String(describing: result.error))")
        #expect(result.output.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "r.sqlite").path), "checked before the store is opened")
    }

    @Test func equalPortsAreAUsageError() async throws {
        for option in ["--console-port", "--metrics-port"] {
            let result = await M.run(["serve", "--config", EndToEndTests.routes, "--port", "18160", option, "18160"])
            #expect(result.error?.exitCode == CLIError.usageExitCode)
            #expect(
                result.error?.message
                    == "\(option) 18160 is --port too, on the same address 127.0.0.1; give each listener a port of its own, or an address of its own")
        }
        let both = ServeListeners(
            host: "127.0.0.1", port: 0, console: .port(host: "127.0.0.1", port: 9000), metrics: .port(host: "127.0.0.1", port: 9000, token: nil))
        #expect(throws: CLIError.self) { try both.checkDistinctPorts() }
        let anyFree = ServeListeners(
            host: "127.0.0.1", port: 0, console: .port(host: "127.0.0.1", port: 0), metrics: .port(host: "127.0.0.1", port: 0, token: nil))
        try anyFree.checkDistinctPorts()
    }

    /// One port on two distinct addresses is a valid layout (reattack R6): only overlapping addresses collide, a
    /// wildcard overlapping every address, IPv4 and IPv6 alike.
    @Test func equalPortsOnDistinctAddressesAreAllowed() throws {
        func listeners(_ host: String, _ consoleHost: String, _ metricsHost: String = "127.0.0.9", port: Int = 18161) -> ServeListeners {
            ServeListeners(
                host: host, port: port, console: .port(host: consoleHost, port: port), metrics: .port(host: metricsHost, port: port + 1, token: nil))
        }
        for (host, consoleHost) in [("127.0.0.1", "127.0.0.2"), ("10.0.0.5", "127.0.0.1"), ("::1", "127.0.0.1")] {
            #expect(throws: Never.self, "\(host) \(consoleHost)") { try listeners(host, consoleHost).checkDistinctPorts() }
        }
        for (host, consoleHost) in [
            ("0.0.0.0", "127.0.0.1"), ("127.0.0.1", "0.0.0.0"), ("::", "127.0.0.1"), ("0.0.0.0", "::"), ("127.0.0.1", "::ffff:127.0.0.1"),
            ("127.0.0.1", "127.1"), ("::1", "0:0:0:0:0:0:0:1"),
        ] {
            #expect(throws: CLIError.self, "\(host) \(consoleHost)") { try listeners(host, consoleHost).checkDistinctPorts() }
        }
        do {
            try listeners("0.0.0.0", "127.0.0.1").checkDistinctPorts()
            Issue.record("a wildcard and loopback on one port were taken")
        } catch {
            #expect(error.exitCode == CLIError.usageExitCode)
            #expect(
                error.message == "--console-port 18161 on 127.0.0.1 is --port on 0.0.0.0 too, and 0.0.0.0 or :: takes the port on every address; "
                    + "give each listener a port of its own, or an address of its own")
        }

        // The layout really binds: with the port held on 127.0.0.1, 127.0.0.2 takes it too.
        let held = try Self.listeningSocket()
        defer { close(held.descriptor) }
        try listeners("127.0.0.1", "127.0.0.2", port: held.port).checkDistinctPorts()
        #expect(ServeListeners.bindProblem(host: "127.0.0.2", port: held.port) == nil)
        #expect(ServeListeners.bindProblem(host: "0.0.0.0", port: held.port) != nil)
    }

    @Test func keysLoseTheSpaceAroundThem() throws {
        #expect(try ClientOptions.apiKey("rl_abc\n", environment: [:]) == "rl_abc")
        #expect(try ClientOptions.apiKey(nil, environment: ["RELINK_API_KEY": " rl_abc\r\n"]) == "rl_abc")
        #expect(try ClientOptions.apiKey("rl_flag", environment: ["RELINK_API_KEY": "rl_env"]) == "rl_flag")
        #expect(try ClientOptions.apiKey(" \n", environment: [:]) == nil)
        #expect(try ClientOptions.apiKey(nil, environment: [:]) == nil)
        #expect(throws: CLIError.self) { try ClientOptions.apiKey("rl_a\nb", environment: [:]) }
        #expect(throws: CLIError.self) { try ClientOptions.apiKey(nil, environment: ["RELINK_API_KEY": "rl_a b"]) }
    }

    @Test func trustForwardedHeadersTakesTheUsualSpellings() throws {
        for text in ["1", "true", "TRUE ", "Yes", "on", "ON"] {
            let policy = try ServeCommand.forwardedHeaderPolicy(
                trust: false, trustedProxies: nil, forwardedHeader: nil, environment: ["RELINK_TRUST_FORWARDED_HEADERS": text])
            #expect(policy != .none, "\(text)")
        }
        for text in ["0", "false", "No", "off", ""] {
            let policy = try ServeCommand.forwardedHeaderPolicy(
                trust: false, trustedProxies: nil, forwardedHeader: nil, environment: ["RELINK_TRUST_FORWARDED_HEADERS": text])
            #expect(policy == .none, "\(text)")
        }
        for text in ["maybe", "2", "enabled"] {
            #expect(throws: CLIError.self, "\(text)") {
                try ServeCommand.forwardedHeaderPolicy(
                    trust: false, trustedProxies: nil, forwardedHeader: nil, environment: ["RELINK_TRUST_FORWARDED_HEADERS": text])
            }
        }
    }

    /// `keys create` and `well-known` read $RELINK_CONFIG as `serve` does (run as processes, for their environment).
    @Test func everyCommandReadsRELINK_CONFIG() throws {
        let executable = try #require(CrashSafetyTests.executable, "the relink executable is not built beside the tests")
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appending(path: "missing.json").path
        for arguments in [
            ["keys", "create", "--project", "pictlink", "--db", folder.appending(path: "k.sqlite").path],
            ["well-known", "--out", folder.appending(path: "wk").path], ["config", "check"],
        ] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
            process.currentDirectoryURL = EndToEndTests.root
            process.environment = ProcessInfo.processInfo.environment.merging(["RELINK_CONFIG": missing]) { $1 }
            let errors = Pipe()
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 1, "\(arguments)")
            #expect(text == "relink: cannot read configuration '\(missing)': no such file\n", "\(arguments)")
        }
    }

    @Test func commandsThatOnlyReadNeedAnExistingDatabase() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let typo = folder.appending(path: "relink.sqlit").path
        for arguments in [["keys", "list"], ["keys", "revoke", "1"], ["verify", "--project", "pictlink", "--config", EndToEndTests.routes]] {
            let result = await M.run(arguments + ["--db", typo])
            #expect(result.error?.message == "no database at \(typo)", "\(arguments)")
            #expect(!FileManager.default.fileExists(atPath: typo), "\(arguments)")
        }
        let created = await M.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes, "--db", typo])
        #expect(created.error == nil)
        #expect(await M.run(["keys", "list", "--db", typo]).error == nil)
    }

    /// A route whose fixed values every click would be warned of is valid: `config check` prints the warning with its
    /// route and succeeds.
    @Test func configCheckPrintsRouteWarnings() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "routes.json")
        try Data(
            #"""
            {"projects": [{"id": "p", "domains": ["https://go.example.com"], "allowlist": ["^https://example\\.com/.*$"],
              "routes": [{"path": "/w", "link": "https://example.com/w", "parameters": {"afl": "ftp://example.com/w"}}]}]}
            """#.utf8
        ).write(to: file)
        let checked = await M.run(["config", "check", file.path])
        #expect(checked.error == nil)
        #expect(
            checked.output.contains { $0.hasPrefix("warning: projects[0].routes[0] (/w): 'afl' must be an http or https URL") }, "\(checked.output)")
    }

    @Test func pathProblemsAreOneClearLine() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(
            await M.run(["config", "check", folder.path]).error?.message
                == "cannot read configuration '\(folder.path)': it is a directory, not a file")
        #expect(await M.run(["config", "check", "/dev/null"]).error?.message == "cannot read configuration '/dev/null': the file is empty")
        let secret = await M.run(["serve", "--config", EndToEndTests.routes, "--port", "0", "--secret-file", folder.path])
        #expect(secret.error?.message == "--secret-file \(folder.path) is a directory; give the file that holds the secret (created when absent)")
        let file = folder.appending(path: "file").path
        _ = FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let wellKnown = await M.run(["well-known", "--config", EndToEndTests.routes, "--out", file])
        #expect(wellKnown.error?.message == "cannot write \(file): it is a file, not a folder", "\(String(describing: wellKnown.error))")
    }
}
