import Foundation

/// A loopback TCP proxy a test can cut: while cut, nothing is forwarded either way and nothing is refused or
/// reset, as when a network silently drops packets. Bytes wait in the kernel's buffers meanwhile, so a connection
/// resumes intact once the proxy is restored.
public final class TCPProxy: @unchecked Sendable {
    public let port: Int
    private let listener: Int32
    private let targetPort: Int
    private let lock = NSLock()
    private var isCut = false
    private var isClosed = false
    /// Open connections' descriptors: each connection's two are closed by the last of its pumps to end, and leave
    /// this list first, so `close()` never touches a number the process has since given to another socket.
    private var descriptors: Set<Int32> = []

    public init(toPort targetPort: Int) throws {
        self.targetPort = targetPort
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 64) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(listener)
            throw POSIXError(.EADDRINUSE)
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    public var cut: Bool {
        get { lock.withLock { isCut } }
        set { lock.withLock { isCut = newValue } }
    }

    /// Ends the listener and every connection; calling it again does nothing. Descriptors are only shut down here:
    /// each is closed by the thread that uses it, once it has stopped using it (a descriptor closed under a thread
    /// still blocked on it could be reused by another socket of the process, which that thread would then use).
    public func close() {
        lock.withLock {
            guard !isClosed else { return }
            isClosed = true
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            for descriptor in descriptors { Glibc.shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    private var closed: Bool { lock.withLock { isClosed } }

    private func acceptLoop() {
        defer { Glibc.close(listener) }
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            guard let server = try? LoopbackSocket.connected(port: targetPort) else {
                Glibc.close(client)
                continue
            }
            var none = timeval(tv_sec: 0, tv_usec: 0)
            setsockopt(server, SOL_SOCKET, SO_RCVTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
            let open = lock.withLock {
                guard !isClosed else { return false }
                descriptors.formUnion([client, server])
                return true
            }
            guard open else {
                Glibc.close(client)
                Glibc.close(server)
                return
            }
            let pumps = PumpPair()
            Thread.detachNewThread { [self] in
                pump(from: client, to: server)
                if pumps.finishOne() { release(client, server) }
            }
            Thread.detachNewThread { [self] in
                pump(from: server, to: client)
                if pumps.finishOne() { release(client, server) }
            }
        }
    }

    /// A connection whose two pumps have ended: out of the list, then closed.
    private func release(_ first: Int32, _ second: Int32) {
        lock.withLock {
            descriptors.remove(first)
            descriptors.remove(second)
        }
        Glibc.close(first)
        Glibc.close(second)
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        defer { Glibc.shutdown(destination, Int32(SHUT_WR)) }
        while !closed {
            if cut {
                Thread.sleep(forTimeInterval: 0.02)
                continue
            }
            var poller = pollfd(fd: source, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 20) >= 0 else { return }
            guard poller.revents != 0, !cut else { continue }
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            var sent = 0
            while sent < count {
                let written = buffer.withUnsafeBytes { send(destination, $0.baseAddress! + sent, count - sent, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { return }
                sent += written
            }
        }
    }
}

/// The two pumps of one connection: the second to end closes its descriptors.
private final class PumpPair: @unchecked Sendable {
    private let lock = NSLock()
    private var running = 2

    /// - Returns: whether this was the last pump.
    func finishOne() -> Bool {
        lock.withLock {
            running -= 1
            return running == 0
        }
    }
}
