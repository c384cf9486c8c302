/// A batch of counters naming a link that does not exist (deleted by hand while its clicks were being counted): the
/// batch is refused whole, on PostgreSQL by the flush's own check, on SQLite by the counters' foreign keys.
public struct CountersOfMissingLink: Error, Sendable, CustomStringConvertible {
    public let linkId: Int64

    public var description: String { "counters of link \(linkId), which does not exist, were not written" }
}
