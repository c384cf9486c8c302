import Foundation

/// Where console sessions live, so that every instance on one database knows them.
public protocol ConsoleSessionRepository: Sendable {
    /// Stores `session` (replacing one with its id), keeping at most `maximumPerKey` sessions of its key (the oldest go
    /// first) and dropping every expired session.
    func saveConsoleSession(_ session: ConsoleSessionRecord, maximumPerKey: Int) async throws
    /// The session with this id hash, unless it has expired by `now`.
    func consoleSession(idHash: String, now: Date) async throws -> ConsoleSessionRecord?
    func removeConsoleSession(idHash: String) async throws
}
