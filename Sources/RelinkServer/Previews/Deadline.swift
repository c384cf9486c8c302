import NIOCore

/// What `withDeadline` throws when the deadline passes first.
public struct DeadlineExceeded: Error {}

/// Runs `body` until `deadline`: past it `body` is cancelled and `DeadlineExceeded` thrown. HTTP clients put their
/// deadline on the response head; a server that then sends its body one byte a second is stopped here.
public func withDeadline<T: Sendable>(_ deadline: NIODeadline, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    try await withThrowingTaskGroup(of: T.self) { group in
        group.addTask { try await body() }
        group.addTask {
            let remaining = deadline - .now()
            if remaining > .zero { try await Task.sleep(nanoseconds: UInt64(remaining.nanoseconds)) }
            throw DeadlineExceeded()
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw DeadlineExceeded() }
        return first
    }
}
