import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import RelinkStore
import RelinkTestSupport
import ServiceLifecycle
import Testing

@testable import RelinkServer

@Suite("API errors")
struct APIErrorMiddlewareTests {
    /// A database that is down (PostgreSQL restarting, a network cut) is a 503 with the API's JSON body, not a 500.
    @Test func anUnavailableDatabaseIs503() async throws {
        let router = Router(context: RelinkRequestContext.self)
        router.add(middleware: RequestObservingMiddleware(metrics: nil))
        router.get("v1/down") { _, _ -> String in throw StoreError.unavailable("the database is unavailable: connection refused") }
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(uri: "/v1/down", method: .get)
            #expect(response.status == .serviceUnavailable)
            let body = String(buffer: response.body)
            #expect(body.contains(#""status":"UNAVAILABLE""#) || body.contains(#""status" : "UNAVAILABLE""#))
            #expect(!body.contains("connection refused"))
        }
    }
}

/// Requests that break off: the client's fault, answered 400, never a 500 or an error in the log.
@Suite("Broken requests") struct BrokenRequestTests {
    /// A TCP connection to `port` on loopback (`LoopbackSocket.connected`).
    static func connected(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        try LoopbackSocket.connected(port: port, receiveBuffer: receiveBuffer)
    }

    /// Sends `bytes` on a new connection to `port`, closes the sending side, and reads the answer.
    static func exchange(_ bytes: String, port: Int) throws -> String {
        let descriptor = try connected(port: port)
        defer { close(descriptor) }
        let data = Array(bytes.utf8)
        guard send(descriptor, data, data.count, 0) == data.count else { throw POSIXError(.EIO) }
        shutdown(descriptor, Int32(SHUT_WR))
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            answer += buffer[0..<count]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// `exchange` on a thread of its own: blocking the concurrency pool's few threads would starve the server.
    static func exchangeOffThePool(_ bytes: String, port: Int) async throws -> String {
        try await offThePool { try exchange(bytes, port: port) }
    }

    /// On a server started as `relink serve` starts it (the test framework's own server keeps half-closed
    /// connections open, so it never sees the body end).
    @Test(.measuresTime, arguments: ["/v1/installAttribution", "/v1/reopenAttribution", "/v1/shortLinks?key=rl_any"])
    func aBodyThatBreaksOffIsA400(_ path: String) async throws {
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // Timeouts far past the answer's wait: in full runs on a loaded machine a connection was closed with no
        // answer, which the default 10 s body timeout does to a handler that waits that long for a thread. Only the
        // broken-off body is on trial here.
        let app = try buildApplication(
            configuration: ServerConfiguration(
                port: 0, relink: TestSupport.configuration, logLevel: .error, headerTimeout: .seconds(60), bodyTimeout: .seconds(60),
                store: try SQLiteStore(), onServerRunning: { continuation.yield($0) }))
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        let lengthCut = try await Self.exchangeOffThePool(
            "POST \(path) HTTP/1.1\r\nHost: go.pictlink.com\r\nContent-Length: 100\r\n\r\n{\"long", port: port)
        let chunkCut = try await Self.exchangeOffThePool(
            "POST \(path) HTTP/1.1\r\nHost: go.pictlink.com\r\nTransfer-Encoding: chunked\r\n\r\n20\r\n{\"long", port: port)
        await group.triggerGracefulShutdown()
        try await task.value
        for answer in [lengthCut, chunkCut] {
            // A 4xx with the API's JSON error, never a 500.
            #expect(answer.hasPrefix("HTTP/1.1 4"), "\(answer)")
            #expect(answer.contains("application/json"), "\(answer)")
        }
    }
    /// A connection that sends nothing is closed after the idle timeout, while requests go on being served.
    @Test(.measuresTime) func anIdleConnectionIsClosed() async throws {
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(
            configuration: ServerConfiguration(
                port: 0, relink: TestSupport.configuration, logLevel: .error, idleTimeout: .milliseconds(300), store: try SQLiteStore(),
                onServerRunning: { continuation.yield($0) }))
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())
        // Sends nothing and waits (at most 30 s) for the server to close: an empty answer, not a timeout.
        let idle = try await Self.idleOffThePool(port: port)
        #expect(idle, "the idle connection was still open after 30 s")
        let served = try await Self.exchangeOffThePool(
            "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port)
        #expect(served.hasPrefix("HTTP/1.1 200"), "\(served)")
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Connects, sends nothing, and tells whether the server closed the connection within 30 s.
    static func idleOffThePool(port: Int) async throws -> Bool {
        try await offThePool {
            let descriptor = try connected(port: port)
            defer { close(descriptor) }
            var byte: UInt8 = 0
            return recv(descriptor, &byte, 1, 0) == 0
        }
    }
}
