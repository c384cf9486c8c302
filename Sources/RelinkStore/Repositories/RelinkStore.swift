/// Everything Relink stores. One implementation per database: SQLite (embedded, the default) and PostgreSQL
/// (several instances). The server only ever sees this protocol.
public protocol RelinkStore: LinkRepository, APIKeyRepository, EventRepository, DeferredLinkRepository, SettingsRepository {
    /// A short description for logs: `SQLite at relink.sqlite`.
    var description: String { get }
}
