import Foundation

/// Blocking work (a socket read, a child process) on a thread of its own. The concurrency pool has a thread per core,
/// two on CI: a test blocking one while `swift build` runs left every other suite's timers and servers one thread,
/// and a 1 s timeout was seen to take 5 s.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// A child process run to its end off the pool: its exit status and everything it wrote to standard output and error.
public func runToEnd(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
    try await offThePool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Read before waiting: a child filling the pipe would otherwise never exit.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }
}
