import ServiceLifecycle

/// Everything Relink stores. One implementation per database: SQLite (embedded, the default) and PostgreSQL
/// (several instances). The server only ever sees this protocol.
public protocol RelinkStore: LinkRepository, APIKeyRepository, EventRepository, DeferredLinkRepository, SettingsRepository,
    WebhookRepository, ConsoleSessionRepository
{
    /// A short description for logs: `SQLite at relink.sqlite`.
    var description: String { get }

    /// Lets go of the store's connections; the store is unusable afterwards. SQLite closes with its last
    /// reference, so its `close()` does nothing.
    func close()

    /// The store's part of the application's lifetime: the application runs it as the first of its services, so
    /// that it stops last, after the event recorders' final writes. Returns, with the store closed, when the
    /// application shuts down gracefully.
    /// - Throws: `CancellationError` when cancelled instead.
    func run() async throws

    /// How other instances' link changes reach this one, for a store several instances share; nil otherwise.
    var linkChanges: (any LinkChangeFeed)? { get }
}

extension RelinkStore {
    public func close() {}

    public func run() async throws {
        try await gracefulShutdown()
        close()
    }

    public var linkChanges: (any LinkChangeFeed)? { nil }
}
