import AsyncHTTPClient
import Foundation
import GRDB
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkStore
@testable import relink

/// `relink serve` as a real process, killed under load: SIGKILL loses at most one flush interval of click events
/// and never the database or a minted link; SIGTERM loses nothing. Against SQLite, and PostgreSQL when
/// RELINK_TEST_DATABASE_URL names a server.
@Suite("Crash safety", .serialized, .loadsTheMachine)
struct CrashSafetyTests {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case sqlite, postgres
        var description: String { rawValue }

        static let databaseURL = ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
        static var available: [Backend] { databaseURL == nil ? [.sqlite] : [.sqlite, .postgres] }
    }

    /// The `relink` executable built beside the tests.
    static var executable: String? {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appending(path: "relink"),
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().deletingLastPathComponent().appending(path: "relink"),
            EndToEndTests.root.appending(path: ".build/debug/relink"),
        ]
        return candidates.map(\.path).first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A running `relink serve`.
    final class Server: @unchecked Sendable {
        let process = Process()
        let port: Int
        let log: URL

        init(executable: String, storeArguments: [String], log: URL) async throws {
            self.log = log
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let output = try FileHandle(forWritingTo: log)
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = ["serve", "--config", EndToEndTests.routes, "--port", "0", "--log-level", "info"] + storeArguments
            var environment = ProcessInfo.processInfo.environment
            environment["RELINK_SECRET"] = "crash-test-secret-0123456789abcdef"
            process.environment = environment
            process.standardOutput = output
            process.standardError = output
            try process.run()
            var port: Int?
            // A start on a busy machine (with PostgreSQL's migrations) was seen to take tens of seconds.
            let starting = ContinuousClock.now + .seconds(90)
            while port == nil && ContinuousClock.now < starting {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                if let match = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/) { port = Int(match.output.1) }
                if port == nil {
                    guard process.isRunning else { break }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            guard let port else {
                process.terminate()
                throw CLIError(message: "relink serve did not start: \((try? String(contentsOf: log, encoding: .utf8)) ?? "")")
            }
            self.port = port
        }

        /// A test that stops early (a failed expectation, a thrown error) leaves no server behind.
        deinit {
            if process.isRunning { process.terminate() }
        }

        func signal(_ number: Int32) async {
            kill(process.processIdentifier, number)
            while process.isRunning { try? await Task.sleep(for: .milliseconds(20)) }
        }
    }

    /// Clicks `paths` from `workers` concurrent clients until `stop` is set; counts the redirects received.
    final class Load: Sendable {
        /// When each redirect was received.
        let acknowledgements = NIOLockedValueBox([ContinuousClock.Instant]())
        var acknowledged: Int { acknowledgements.withLockedValue { $0.count } }
        let stopped = NIOLockedValueBox(false)

        func run(http: HTTPClient, port: Int, paths: [String], workers: Int) async {
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<workers {
                    group.addTask {
                        var index = worker
                        while !self.stopped.withLockedValue({ $0 }) {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(paths[index % paths.count])")
                            request.headers.add(name: "Host", value: "go.pictlink.com")
                            request.headers.add(name: "User-Agent", value: EndToEndTests.agents[2].userAgent)
                            index += workers
                            guard let response = try? await http.execute(request, timeout: .seconds(5)) else {
                                try? await Task.sleep(for: .milliseconds(20))
                                continue
                            }
                            if response.status == .found { self.acknowledgements.withLockedValue { $0.append(.now) } }
                        }
                    }
                }
            }
        }
    }

    /// Mints a link to `https://pictlink.com/<path>` (desktops to `/desktop`) through a running server's API: its
    /// short link's path (`/code`), nil when the server refused it (past the mint rate limit).
    static func mint(http: HTTPClient, port: Int, key: String, path: String) async throws -> String? {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/shortLinks?key=\(key)")
        request.method = .POST
        request.body = .bytes(
            ByteBuffer(
                string: #"{"longDynamicLink": "https://go.pictlink.com/?link=https://pictlink.com/\#(path)&ofl=https://pictlink.com/desktop"}"#))
        let response = try await http.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 16)
        return String(buffer: body).firstMatch(of: /"shortLink":"https:\/\/go\.pictlink\.com(\/[A-Za-z0-9]+)"/).map { String($0.output.1) }
    }

    static func store(_ backend: Backend, arguments: [String]) async throws -> any RelinkStore {
        switch backend {
        case .sqlite: try SQLiteStore(path: arguments[1])
        case .postgres: try await PostgresStore.connect(try DatabaseURL(arguments[1]))
        }
    }

    /// CLICK events stored for `links`.
    static func storedClicks(_ links: [ShortLinkRecord], in store: any RelinkStore) async throws -> Int {
        var total: Int64 = 0
        for link in links {
            total += try await store.eventCounts(linkId: link.id, fromDay: 0).filter { $0.event == .click }.map(\.count).reduce(0, +)
        }
        return Int(total)
    }

    @Test(arguments: Backend.available, [SIGKILL, SIGTERM])
    func killedUnderLoad(_ backend: Backend, signal: Int32) async throws {
        let executable = try #require(Self.executable, "the relink executable is not built beside the tests")
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-crash-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = "t_crash_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        // Redirects are what is measured, never followed.
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            try await Self.killUnderLoad(backend, signal: signal, executable: executable, folder: folder, schema: String(schema), http: http)
        } catch {
            try await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func killUnderLoad(
        _ backend: Backend, signal: Int32, executable: String, folder: URL, schema: String, http: HTTPClient
    ) async throws {
        let storeArguments: [String]
        switch backend {
        case .sqlite: storeArguments = ["--db", folder.appending(path: "relink.sqlite").path]
        case .postgres:
            let base = try #require(Backend.databaseURL)
            storeArguments = ["--database", base + (base.contains("?") ? "&" : "?") + "schema=\(schema)&wait_timeout=30"]
        }
        let key = try #require(
            try await EndToEndTests.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes] + storeArguments).first)

        // Mint 40 links, then load them with clicks and kill the server 2 s into the load.
        var server = try await Server(executable: executable, storeArguments: storeArguments, log: folder.appending(path: "first.log"))
        var codes: [String] = []
        for index in 0..<40 {
            codes.append(try #require(try await Self.mint(http: http, port: server.port, key: key, path: "crash/\(index)")))
        }
        let load = Load()
        let (port, paths) = (server.port, codes)
        let running = Task { await load.run(http: http, port: port, paths: paths, workers: 8) }
        let clock = ContinuousClock()
        let start = clock.now
        try await Task.sleep(for: .seconds(4))
        let beforeSignal = load.acknowledged
        let loadTime = clock.now - start
        let signalled = clock.now
        await server.signal(signal)
        load.stopped.withLockedValue { $0 = true }
        await running.value
        let acknowledged = load.acknowledged
        // One flush interval (1 s) before the signal, plus the time the flush itself takes on a busy machine, plus
        // whatever was answered after it: what a SIGKILL may lose.
        let window = load.acknowledgements.withLockedValue { times in times.filter { $0 > signalled - .milliseconds(1500) }.count }

        // Restarted on the same database.
        if backend == .sqlite {
            let queue = try DatabaseQueue(path: storeArguments[1])
            let check = try await queue.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"], "integrity_check: \(check)")
            try queue.close()
        }
        server = try await Server(executable: executable, storeArguments: storeArguments, log: folder.appending(path: "second.log"))
        for code in codes {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(code)")
            request.headers.add(name: "Host", value: "go.pictlink.com")
            request.headers.add(name: "User-Agent", value: EndToEndTests.agents[2].userAgent)
            let response = try await http.execute(request, timeout: .seconds(10))
            #expect(response.status == .found, "\(code) does not resolve after the restart")
            #expect(response.headers.first(name: "Location") == "https://pictlink.com/desktop")
        }
        await server.signal(SIGTERM)

        let store = try await Self.store(backend, arguments: storeArguments)
        var links: [ShortLinkRecord] = []
        for code in codes { links.append(try #require(try await store.link(domain: "https://go.pictlink.com", code: String(code.dropFirst())))) }
        // The restart's own 40 clicks are stored too.
        let stored = try await Self.storedClicks(links, in: store) - codes.count
        if backend == .postgres, let postgres = store as? PostgresStore { try? await postgres.execute("DROP SCHEMA \(schema) CASCADE") }
        store.close()

        let rate = Double(beforeSignal) / (Double(loadTime.components.seconds) + Double(loadTime.components.attoseconds) / 1e18)
        let lost = max(0, acknowledged - stored)
        print(
            "crash safety (\(backend), \(signal == SIGKILL ? "SIGKILL" : "SIGTERM")): \(acknowledged) clicks answered, \(stored) stored, \(lost) lost; \(Int(rate)) clicks/s; \(window) answered in the last 1.5 s before the signal"
        )
        if signal == SIGTERM {
            #expect(lost == 0, "a graceful stop lost \(lost) of \(acknowledged) clicks")
        } else {
            // One flush interval of clicks, plus those in flight when the process died.
            #expect(lost <= window, "SIGKILL lost \(lost) clicks, more than one flush interval's worth (\(window))")
        }
        #expect(acknowledged > 0)
    }
}
