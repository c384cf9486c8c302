import AsyncHTTPClient
import Foundation
import GRDB
import GRDBSQLite
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import RelinkTestSupport
import Testing

@testable import RelinkStore
@testable import relink

/// SIGTERM ends `relink serve` within `--shutdown-timeout` (and 2 s) whatever the store is doing: unreachable
/// PostgreSQL (packets dropped, no reset) or a SQLite file another process holds locked. The last log line counts
/// what was not written; what it says was written is in the store, and written and unwritten add up to what was
/// recorded.
@Suite("Bounded stop", .serialized, .measuresTime)
struct BoundedStopTests {
    static let deadline = 3

    /// The stop's line: events written, recorded and left unwritten.
    struct StopLine: Equatable {
        var written: Int
        var recorded: Int
        var unwritten: Int

        init?(log: String) {
            guard let match = log.firstMatch(of: /events written: (\d+) of (\d+) recorded; (?:NOT WRITTEN: (\d+) events|nothing left unwritten)/)
            else { return nil }
            written = Int(match.output.1)!
            recorded = Int(match.output.2)!
            unwritten = match.output.3.flatMap { Int($0) } ?? 0
        }
    }

    @Test func unreachablePostgreSQLStopsWithinTheDeadline() async throws {
        guard let base = CrashSafetyTests.Backend.databaseURL else { return }
        let executable = try #require(CrashSafetyTests.executable, "relink is not built beside the tests")
        let real = try DatabaseURL(base)
        let proxy = try TCPProxy(toPort: real.port)
        defer { proxy.close() }
        let schema = "t_stop_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let viaProxy = base.replacingOccurrences(of: "\(real.host):\(real.port)", with: "127.0.0.1:\(proxy.port)")
        let separator = base.contains("?") ? "&" : "?"
        try await Self.stop(
            executable: executable,
            // A generous wait for the steps before the cut (the key, the mint) on a busy machine: the stop's deadline
            // bounds the stop whatever the wait.
            storeArguments: ["--database", viaProxy + separator + "schema=\(schema)&wait_timeout=30"],
            directStore: { try await PostgresStore.connect(try DatabaseURL(base + separator + "schema=\(schema)&wait_timeout=30")) },
            block: { proxy.cut = true },
            // Closed, not restored: bytes held while it was cut must not reach the database after the test.
            unblock: { proxy.close() },
            cleanUp: { store in try? await (store as? PostgresStore)?.execute("DROP SCHEMA \(schema) CASCADE") })
    }

    @Test func aLockedSQLiteFileStopsWithinTheDeadlineAndKeepsWhatItWrote() async throws {
        let executable = try #require(CrashSafetyTests.executable, "relink is not built beside the tests")
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-stop-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "relink.sqlite").path
        // Another process's write lock: a connection of this test's, in a transaction (the server is a process of its
        // own, and SQLite's locks are the process's).
        let locker = SQLiteLock(path: path)
        defer { locker.release() }
        try await Self.stop(
            executable: executable, storeArguments: ["--db", path],
            directStore: { try SQLiteStore(path: path) },
            block: { try locker.hold() },
            unblock: { locker.release() },
            cleanUp: { _ in
                let queue = try? DatabaseQueue(path: path)
                let check = try? await queue?.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
                #expect(check == ["ok"], "integrity_check: \(check ?? [])")
                try? queue?.close()
            })
    }

    /// A request still running at the deadline (an API call whose body never comes) is cut there, and the stop ends
    /// as planned: exit 0 and the stop's line, not a failure to serve.
    @Test func aRequestStillRunningAtTheDeadlineIsCutAndTheStopEndsAsPlanned() async throws {
        let executable = try #require(CrashSafetyTests.executable, "relink is not built beside the tests")
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-stop-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let storeArguments = ["--db", folder.appending(path: "relink.sqlite").path]
        let key = try #require(
            try await EndToEndTests.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes] + storeArguments).first)
        let log = folder.appending(path: "serve.log")
        let server = try await CrashSafetyTests.Server(
            executable: executable, storeArguments: storeArguments + ["--shutdown-timeout", "\(Self.deadline)"], log: log)
        let socket = try LoopbackSocket.connected(port: server.port)
        defer { close(socket) }
        let head = "POST /v1/shortLinks?key=\(key) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"
        #expect(Array(head.utf8).withUnsafeBytes { send(socket, $0.baseAddress, $0.count, 0) } == head.utf8.count)
        try await Task.sleep(for: .milliseconds(500))

        let start = ContinuousClock.now
        await server.signal(SIGTERM)
        let took = ContinuousClock.now - start
        #expect(took < .seconds(Self.deadline + 2), "the stop took \(took), past its \(Self.deadline) s deadline and 2 s")
        let text = try String(contentsOf: log, encoding: .utf8)
        #expect(server.process.terminationStatus == 0, "\(text.suffix(2_000))")
        #expect(StopLine(log: text) != nil, "no stop line in \(text.suffix(2_000))")
        #expect(!text.contains("could not serve"), "\(text.suffix(2_000))")
    }

    /// A SQLite file's write lock, held by a bare connection in an open transaction.
    final class SQLiteLock: @unchecked Sendable {
        let path: String
        private var connection: OpaquePointer?

        init(path: String) { self.path = path }

        func hold() throws {
            guard sqlite3_open_v2(path, &connection, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK,
                sqlite3_exec(connection, "BEGIN IMMEDIATE", nil, nil, nil) == SQLITE_OK
            else { throw CLIError(message: "could not lock \(path)") }
        }

        func release() {
            guard let connection else { return }
            sqlite3_exec(connection, "ROLLBACK", nil, nil, nil)
            sqlite3_close(connection)
            self.connection = nil
        }
    }

    /// Clicks a link, waits until they are stored, blocks the store, clicks again, and stops the server.
    static func stop(
        executable: String, storeArguments: [String], directStore: @escaping () async throws -> any RelinkStore,
        block: () async throws -> Void, unblock: () async throws -> Void, cleanUp: (any RelinkStore) async -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-stop-log-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = try #require(
            try await EndToEndTests.run(["keys", "create", "--project", "pictlink", "--config", EndToEndTests.routes] + storeArguments).first)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        do {
            try await stop(
                executable: executable, storeArguments: storeArguments, directStore: directStore, block: block, unblock: unblock,
                cleanUp: cleanUp, key: key, http: http, log: folder.appending(path: "serve.log"))
        } catch {
            try await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    static func stop(
        executable: String, storeArguments: [String], directStore: @escaping () async throws -> any RelinkStore,
        block: () async throws -> Void, unblock: () async throws -> Void, cleanUp: (any RelinkStore) async -> Void, key: String,
        http: HTTPClient, log: URL
    ) async throws {
        let server = try await CrashSafetyTests.Server(
            executable: executable, storeArguments: storeArguments + ["--shutdown-timeout", "\(deadline)"], log: log)
        let path = try #require(try await CrashSafetyTests.mint(http: http, port: server.port, key: key, path: "stop"))
        @Sendable func click() async throws {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)\(path)")
            request.headers.add(name: "Host", value: "go.pictlink.com")
            request.headers.add(name: "User-Agent", value: EndToEndTests.agents[2].userAgent)
            let response = try await http.execute(request, timeout: .seconds(30))
            #expect(response.status == .found)
        }

        // Stored before the store is blocked.
        for _ in 0..<20 { try await click() }
        let store = try await directStore()
        let link = try #require(try await store.link(domain: "https://go.pictlink.com", code: String(path.dropFirst())))
        var stored = 0
        let storing = ContinuousClock.now + .seconds(60)
        while stored < 20 && ContinuousClock.now < storing {
            try await Task.sleep(for: .milliseconds(100))
            stored = try await CrashSafetyTests.storedClicks([link], in: store)
        }
        #expect(stored == 20)
        store.close()

        // Recorded while it is blocked (cached: the link answers without the store), then the stop.
        try await block()
        for _ in 0..<30 { try await click() }
        try await Task.sleep(for: .milliseconds(1_500))
        let start = ContinuousClock.now
        await server.signal(SIGTERM)
        let took = ContinuousClock.now - start
        try await unblock()
        #expect(took < .seconds(deadline + 2), "the stop took \(took), past its \(deadline) s deadline and 2 s")
        #expect(server.process.terminationStatus == 0)

        let text = try String(contentsOf: log, encoding: .utf8)
        let line = try #require(StopLine(log: text), "no stop line in \(text.suffix(2_000))")
        #expect(line.unwritten > 0, "nothing was left unwritten: \(line)")
        #expect(line.written + line.unwritten == line.recorded, "\(line)")

        // What the line says was written is in the store, and nothing more: every click before the block.
        let after = try await directStore()
        let events = try await after.eventCounts(linkId: link.id, fromDay: 0).map(\.count).reduce(0, +)
        #expect(Int(events) == line.written, "\(events) events stored, \(line.written) said written")
        #expect(try await CrashSafetyTests.storedClicks([link], in: after) == 20)
        await cleanUp(after)
        after.close()
    }
}
