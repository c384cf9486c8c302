/// What a store reports that callers act on; everything else is an unexpected database error.
public enum StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    case codeTaken(domain: String, code: String)
    case idempotencyKeyTaken
    case notFound
    /// The database holds a schema newer than this build understands.
    case schemaTooNew(found: String, known: String)
    /// `--database` / `RELINK_DATABASE_URL` is not a usable PostgreSQL URL.
    case invalidDatabaseURL(String)
    /// The database could not be reached or refused the request; the text says why.
    case unavailable(String)

    public var description: String {
        switch self {
        case .codeTaken(let domain, let code): "\(domain)/\(code) is taken"
        case .idempotencyKeyTaken: "a link for this request exists already"
        case .notFound: "not found"
        case .schemaTooNew(let found, let known):
            "the database schema is at migration '\(found)', newer than this build of Relink knows ('\(known)'); upgrade relink"
        case .invalidDatabaseURL(let why): "invalid database URL: \(why)"
        case .unavailable(let why): why
        }
    }
}
