/// A store whose link lookup costs so little that a click reads it on the thread that serves the click (SQLite's: one
/// indexed row from its page cache, microseconds), so that the lean path answers a click on a link not in memory too.
/// PostgreSQL's lookups go over the network, batched, and are not offered here.
public protocol ImmediateLinkLookup: Sendable {
    /// The same answer as `LinkRepository.link(domain:code:)`, on the calling thread.
    func linkImmediately(domain: String, code: String) throws -> ShortLinkRecord?
}
