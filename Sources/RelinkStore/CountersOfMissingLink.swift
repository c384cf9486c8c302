/// A batch of counters naming links that do not exist (deleted by hand while their clicks were being counted): the
/// batch is refused whole, on PostgreSQL by the flush's own check, on SQLite by the counters' foreign keys. The
/// writer drops those links' counters and writes the rest.
public struct CountersOfMissingLink: Error, Sendable, CustomStringConvertible {
    public let linkIds: [Int64]

    public init(linkIds: [Int64]) { self.linkIds = linkIds }

    public var description: String {
        "counters of \(linkIds.count == 1 ? "link" : "links") \(linkIds.map(String.init).joined(separator: ", ")), which \(linkIds.count == 1 ? "does" : "do") not exist, were not written"
    }
}
