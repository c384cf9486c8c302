/// A change to a short link that other instances sharing the store must see.
public enum LinkChange: Sendable, Equatable {
    case link(domain: String, code: String)
    /// Changes may have been missed (the feed reconnected): forget every cached link.
    case all
}

/// A store shared by several instances tells each of them when any instance creates or changes a link, so they
/// can cache links without serving stale ones for long.
public protocol LinkChangeFeed: Sendable {
    /// Calls `onChange` for each change, from any instance, until the task is cancelled. Reconnects by itself,
    /// calling `onChange(.all)` whenever it (re)starts listening.
    func watchLinkChanges(_ onChange: @escaping @Sendable (LinkChange) -> Void) async
}
