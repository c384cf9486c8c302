import Foundation
import Logging
import RelinkStore
import RelinkTestSupport
import ServiceLifecycle
import Testing

@testable import RelinkServer

/// Slow clients on real sockets: idle ones are closed after the idle timeout, ones trickling a request's head or
/// body after the header or body timeout, while everyone else keeps being served.
@Suite("Connection timeouts", .measuresTime) struct ConnectionTimeoutTests {
    enum Behaviour: CaseIterable {
        /// Connects and sends nothing.
        case idle
        /// Sends a request head a byte at a time, never finishing it.
        case tricklingHead
        /// Sends a whole head announcing 1,000 bytes of body, then the body a byte at a time.
        case tricklingBody
    }

    /// When each of `count` connections of `behaviour` was closed by the server, in seconds after it connected;
    /// nil for one still open after `within` seconds.
    static func slowClients(port: Int, counts: [Behaviour: Int], within: Double) throws -> [Behaviour: [Double?]] {
        var sockets: [(Behaviour, Int32)] = []
        var connectedAt: [Date] = []
        defer { for (_, descriptor) in sockets { close(descriptor) } }
        for behaviour in Behaviour.allCases {
            for _ in 0..<(counts[behaviour] ?? 0) {
                let descriptor = try BrokenRequestTests.connected(port: port)
                _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
                if behaviour == .tricklingBody {
                    let head = Array("POST /v1/installAttribution HTTP/1.1\r\nHost: localhost\r\nContent-Length: 1000\r\n\r\n".utf8)
                    _ = send(descriptor, head, head.count, Int32(MSG_NOSIGNAL))
                }
                sockets.append((behaviour, descriptor))
                connectedAt.append(Date())
            }
        }
        let start = Date()
        var closedAt = [Double?](repeating: nil, count: sockets.count)
        let headBytes = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ".utf8)
        var sent = 0
        while Date().timeIntervalSince(start) < within && closedAt.contains(where: { $0 == nil }) {
            for (index, (behaviour, descriptor)) in sockets.enumerated() where closedAt[index] == nil {
                var buffer = [UInt8](repeating: 0, count: 512)
                let received = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if received == 0 || (received < 0 && errno != EAGAIN && errno != EWOULDBLOCK) {
                    closedAt[index] = Date().timeIntervalSince(connectedAt[index])
                    continue
                }
                guard behaviour != .idle else { continue }
                // One byte every 200 ms: each keeps the connection busy, none finishes the request.
                var byte = behaviour == .tricklingHead ? headBytes[min(sent, headBytes.count - 1)] : UInt8(ascii: "x")
                if behaviour == .tricklingHead && sent >= headBytes.count { byte = UInt8(ascii: "a") }
                if send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) < 0 && errno != EAGAIN {
                    closedAt[index] = Date().timeIntervalSince(connectedAt[index])
                }
            }
            sent += 1
            Thread.sleep(forTimeInterval: 0.2)
        }
        var result: [Behaviour: [Double?]] = [:]
        for (index, (behaviour, _)) in sockets.enumerated() { result[behaviour, default: []].append(closedAt[index]) }
        return result
    }

    /// 500 slow connections at once (250 idle, 150 trickling a head, 100 trickling a body): the tricklers are closed
    /// after the header or body timeout (1 s), long before the idle timeout (30 s) that closes the idle ones, and
    /// requests from other clients are answered all along. (Margins are wide: other suites load the 2 cores, and 500
    /// connections watched by one thread took up to 8.5 s, and on CI past 14 s, to see their tricklers closed. A head
    /// trickler would meet the idle timeout too, so the bound on tricklers stays below it.)
    @Test func slowAndIdleConnectionsAreClosedWhileOthersAreServed() async throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < 4096 {
            limit.rlim_cur = min(limit.rlim_max, 4096)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(
            configuration: ServerConfiguration(
                port: 0, relink: TestSupport.configuration, logLevel: .error, idleTimeout: .seconds(30), headerTimeout: .seconds(1),
                bodyTimeout: .seconds(1), store: try SQLiteStore(), onServerRunning: { continuation.yield($0) }))
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let counts: [Behaviour: Int] = [.idle: 250, .tricklingHead: 150, .tricklingBody: 100]
        let slow = Task { try await offThePool { try Self.slowClients(port: port, counts: counts, within: 45) } }
        // Meanwhile an ordinary client is served, a request every 100 ms, for 16 s and until 3 were answered (at most
        // 28 s, while the idle connections are still open): in a full run each took up to 6 s, the test process's
        // threads busy with the other suites.
        var served = 0
        var failed: [String] = []
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(16) || (served < 3 && ContinuousClock.now - start < .seconds(28)) {
            let answer = try await BrokenRequestTests.exchangeOffThePool(
                "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port)
            if answer.hasPrefix("HTTP/1.1 200") { served += 1 } else { failed.append(String(answer.prefix(80))) }
            try await Task.sleep(for: .milliseconds(100))
        }
        let closed = try await slow.value
        await group.triggerGracefulShutdown()
        try await task.value

        #expect(failed.isEmpty, "\(failed.count) ordinary requests failed: \(failed.prefix(3))")
        #expect(served >= 3, "only \(served) ordinary requests were answered in 28 s")
        for behaviour in Behaviour.allCases {
            let times = closed[behaviour] ?? []
            #expect(times.count == counts[behaviour])
            #expect(times.allSatisfy { $0 != nil }, "\(times.filter { $0 == nil }.count) \(behaviour) connections still open after 45 s")
            let latest = times.compactMap { $0 }.max() ?? 0
            let earliest = times.compactMap { $0 }.min() ?? 0
            switch behaviour {
            case .idle: #expect(earliest >= 29.5, "an idle connection was closed after \(earliest) s, before the 30 s idle timeout")
            case .tricklingHead, .tricklingBody:
                #expect(latest < 27, "a \(behaviour) connection lasted \(latest) s, past the 1 s timeout")
            }
        }
    }

    /// A server on port 0 (and a metrics port) with short timeouts; `body` gets the main and metrics ports.
    static func withServer(
        maxConnections: Int = 10_000, idleTimeout: Duration = .seconds(8),
        _ body: @Sendable (_ port: Int, _ metricsPort: Int) async throws -> Void
    ) async throws {
        var logger = Logger(label: "relink.test")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: (String, Int).self)
        var configuration = ServerConfiguration(
            port: 0, relink: TestSupport.configuration, logLevel: .error, idleTimeout: idleTimeout, headerTimeout: .seconds(1),
            bodyTimeout: .seconds(1), sendTimeout: .seconds(1), maxConnections: maxConnections,
            metrics: .port(host: "127.0.0.1", port: 0, token: nil), store: try SQLiteStore(),
            onServerRunning: { continuation.yield(("main", $0)) })
        configuration.onMetricsServerRunning = { continuation.yield(("metrics", $0)) }
        let app = try buildApplication(configuration: configuration)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var found: [String: Int] = [:]
        for await (name, port) in ports {
            found[name] = port
            if found.count == 2 { break }
        }
        do {
            try await body(try #require(found["main"]), try #require(found["metrics"]))
        } catch {
            await group.triggerGracefulShutdown()
            try? await task.value
            throw error
        }
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Whether the server has closed `descriptor`: reads what is waiting without blocking until the end (closed) or
    /// until nothing more is there (open).
    static func isClosed(_ descriptor: Int32) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        for _ in 0..<10_000 {
            let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return true }
            if count < 0 { return errno != EAGAIN && errno != EWOULDBLOCK }
        }
        return false
    }

    /// A client that pipelines requests and never reads the answers: closed once the answers have waited 1 s, so the
    /// stream ends before all of them (without the send timeout, all arrive once the client reads, and only then does
    /// the idle timeout close). The client stays away long enough for a loaded machine to fill the buffers first.
    @Test func aClientThatNeverReadsIsClosed() async throws {
        let requests = 300
        try await Self.withServer { port, _ in
            let (ended, answers) = try await offThePool { () throws -> (Bool, Int) in
                let descriptor = try BrokenRequestTests.connected(port: port, receiveBuffer: 1024)
                defer { close(descriptor) }
                let request = Array("GET /v1/openapi.json HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
                for _ in 0..<requests { _ = send(descriptor, request, request.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                // 8 s was not always enough for a machine loaded twice over to fill the buffers.
                Thread.sleep(forTimeInterval: 14)
                var timeout = timeval(tv_sec: 1, tv_usec: 0)
                setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 65_536)
                let deadline = Date().addingTimeInterval(30)
                var ended = false
                while Date() < deadline {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count > 0 {
                        received += buffer[0..<count]
                    } else if count == 0 || errno == ECONNRESET {
                        ended = true
                        break
                    } else if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR {
                        break
                    }
                }
                let head = Array("HTTP/1.1 200".utf8)
                let answers = received.indices.filter { received[$0...].starts(with: head) }.count
                return (ended, answers)
            }
            #expect(ended, "a connection whose client never read was still open after 44 s")
            #expect(answers < requests, "all \(requests) answers arrived: the connection was not cut")
        }
    }

    /// An answer sent before the request's body, then the body, then the next request trickled: the header timeout
    /// (1 s) still applies to that next request, which is closed long before the idle timeout (30 s) could close it.
    @Test func anEarlyAnswerDoesNotStretchTheHeaderTimeout() async throws {
        try await Self.withServer(idleTimeout: .seconds(30)) { port, metricsPort in
            let (main, metrics) = try await offThePool {
                func trickle(_ port: Int, _ first: String) throws -> Bool {
                    let descriptor = try BrokenRequestTests.connected(port: port)
                    defer { close(descriptor) }
                    let head = Array(first.utf8)
                    _ = send(descriptor, head, head.count, Int32(MSG_NOSIGNAL))
                    Thread.sleep(forTimeInterval: 0.3)
                    let rest = Array("hello".utf8) + Array("GET /healthz HTTP/1.1\r\nHo".utf8)
                    for byte in rest {
                        var byte = byte
                        guard send(descriptor, &byte, 1, Int32(MSG_NOSIGNAL)) == 1 else { return true }
                        Thread.sleep(forTimeInterval: 0.1)
                        if Self.isClosed(descriptor) { return true }
                    }
                    // Up to 15 s: a loaded machine was seen to take more than 3.
                    for _ in 0..<150 {
                        if Self.isClosed(descriptor) { return true }
                        Thread.sleep(forTimeInterval: 0.1)
                    }
                    return false
                }
                return (
                    try trickle(port, "GET /p/1 HTTP/1.1\r\nHost: go.pictlink.com\r\nContent-Length: 5\r\n\r\n"),
                    try trickle(metricsPort, "GET /metrics HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n\r\n")
                )
            }
            #expect(main, "the trickled request after an early answer outlived the header timeout")
            #expect(metrics, "the metrics port has no header timeout")
        }
    }

    /// Past the connection limit a new connection is closed at once; closing others makes room again.
    /// After the answer to `Connection: close` (on the lean path and the router's), the server gives the connection
    /// and its place under the limit up within the 2 s it lingers, even while the client keeps its side open: not at
    /// the idle timeout (30 s here).
    @Test func aClosedConnectionGivesUpItsPlaceWhileTheClientStays() async throws {
        try await Self.withServer(maxConnections: 2, idleTimeout: .seconds(30)) { port, _ in
            let served = try await offThePool {
                let lean = "GET /?link=https%3A%2F%2Fpictlink.com%2Fa HTTP/1.1\r\nHost: go.pictlink.com\r\nConnection: close\r\n\r\n"
                let router = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                let staying = try [lean, router].map { request in
                    let descriptor = try BrokenRequestTests.connected(port: port)
                    _ = send(descriptor, request, request.utf8.count, Int32(MSG_NOSIGNAL))
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    while recv(descriptor, &buffer, buffer.count, 0) > 0 {}
                    return descriptor
                }
                defer { for descriptor in staying { close(descriptor) } }
                Thread.sleep(forTimeInterval: 4)
                // Two at once: both places must be free again.
                let next = try (0..<2).map { _ in try BrokenRequestTests.connected(port: port) }
                defer { for descriptor in next { close(descriptor) } }
                return next.map { descriptor in
                    let request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
                    _ = send(descriptor, request, request.utf8.count, Int32(MSG_NOSIGNAL))
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    return count > 0 && String(decoding: buffer[..<count], as: UTF8.self).hasPrefix("HTTP/1.1 200")
                }
            }
            #expect(served == [true, true], "a closed connection kept its place")
        }
    }

    @Test func connectionsPastTheLimitAreClosed() async throws {
        try await Self.withServer(maxConnections: 20) { port, metricsPort in
            let (refused, metricsRefused, servedAfter) = try await offThePool {
                var held = try (0..<20).map { _ in try BrokenRequestTests.connected(port: port) }
                defer { for descriptor in held { close(descriptor) } }
                // Until the server has taken all 20 (a busy machine may take a while to accept them).
                let idle = "GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n"
                for descriptor in held { _ = send(descriptor, idle, idle.utf8.count, Int32(MSG_NOSIGNAL)) }
                for descriptor in held {
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = recv(descriptor, &buffer, buffer.count, 0)
                }
                let extra = try BrokenRequestTests.connected(port: port)
                defer { close(extra) }
                let onMetrics = try BrokenRequestTests.connected(port: metricsPort)
                defer { close(onMetrics) }
                func closedWithin(_ descriptor: Int32, seconds: Double) -> Bool {
                    let deadline = Date().addingTimeInterval(seconds)
                    while Date() < deadline {
                        if Self.isClosed(descriptor) { return true }
                        Thread.sleep(forTimeInterval: 0.05)
                    }
                    return false
                }
                let refused = closedWithin(extra, seconds: 30)
                let metricsRefused = closedWithin(onMetrics, seconds: 30)
                for descriptor in held.prefix(5) { close(descriptor) }
                held.removeFirst(5)
                // Room again once the server has seen the closes: at most 30 s (0.5 s, then 5 s, failed on a loaded
                // machine, CI's clean checkout beside the load tests). A server that never frees the room still fails.
                var servedAfter = false
                let deadline = Date().addingTimeInterval(30)
                while !servedAfter && Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.1)
                    let request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                    let answer = (try? BrokenRequestTests.exchange(request, port: port)) ?? ""
                    servedAfter = answer.hasPrefix("HTTP/1.1 200")
                }
                return (refused, metricsRefused, servedAfter)
            }
            #expect(refused, "the 21st connection was kept")
            #expect(metricsRefused, "the metrics port does not share the limit")
            #expect(servedAfter)
        }
    }
}
