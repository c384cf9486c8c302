import Foundation
import Logging
import RelinkStore
import ServiceLifecycle
import Testing

@testable import RelinkServer

/// Slow clients on real sockets: idle ones are closed after the idle timeout, ones trickling a request's head or
/// body after the header or body timeout, while everyone else keeps being served.
@Suite("Connection timeouts") struct ConnectionTimeoutTests {
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
    /// after the header or body timeout (1 s), long before the idle timeout (6 s) that closes the idle ones, and
    /// requests from other clients are answered all along. (Margins are wide: other suites load the machine.)
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
                port: 0, relink: TestSupport.configuration, logLevel: .error, idleTimeout: .seconds(6), headerTimeout: .seconds(1),
                bodyTimeout: .seconds(1), store: try SQLiteStore(), onServerRunning: { continuation.yield($0) }))
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        let port = try #require(await iterator.next())

        let counts: [Behaviour: Int] = [.idle: 250, .tricklingHead: 150, .tricklingBody: 100]
        let slow = Task {
            try await withCheckedThrowingContinuation { continuation in
                Thread.detachNewThread { continuation.resume(with: Result { try Self.slowClients(port: port, counts: counts, within: 16) }) }
            }
        }
        // Meanwhile an ordinary client is served, a request every 100 ms.
        var served = 0
        var failed: [String] = []
        let start = ContinuousClock.now
        while ContinuousClock.now - start < .seconds(8) {
            let answer = try await BrokenRequestTests.exchangeOffThePool(
                "GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n", port: port)
            if answer.hasPrefix("HTTP/1.1 200") { served += 1 } else { failed.append(String(answer.prefix(80))) }
            try await Task.sleep(for: .milliseconds(100))
        }
        let closed = try await slow.value
        await group.triggerGracefulShutdown()
        try await task.value

        #expect(failed.isEmpty, "\(failed.count) ordinary requests failed: \(failed.prefix(3))")
        #expect(served >= 5)
        for behaviour in Behaviour.allCases {
            let times = closed[behaviour] ?? []
            #expect(times.count == counts[behaviour])
            #expect(times.allSatisfy { $0 != nil }, "\(times.filter { $0 == nil }.count) \(behaviour) connections still open after 16 s")
            let latest = times.compactMap { $0 }.max() ?? 0
            let earliest = times.compactMap { $0 }.min() ?? 0
            switch behaviour {
            case .idle: #expect(earliest >= 5.5, "an idle connection was closed after \(earliest) s, before the 6 s idle timeout")
            case .tricklingHead, .tricklingBody:
                #expect(latest < 5, "a \(behaviour) connection lasted \(latest) s, past the 1 s timeout")
            }
        }
    }
}
