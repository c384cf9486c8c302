import Foundation

/// Raw TCP connections on loopback, for tests that must see bytes as they cross (or fail to).
public enum LoopbackSocket {
    /// A TCP connection to `port` on loopback that waits at most 30 s for each read, so a server that neither
    /// answers nor closes fails the test instead of hanging it (10 s was seen to pass for an answer in a full run on
    /// a loaded machine, the test process's threads busy with the other suites).
    /// - Parameter receiveBuffer: a receive buffer size set before connecting (so the window is small from the start).
    public static func connected(port: Int, receiveBuffer: Int32? = nil) throws -> Int32 {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EBADF) }
        if var size = receiveBuffer { setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(descriptor)
            throw POSIXError(.ECONNREFUSED)
        }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return descriptor
    }
}
