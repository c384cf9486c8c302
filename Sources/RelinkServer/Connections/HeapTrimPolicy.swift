/// When to give the heap that connections left free back to the system: once the connections open have fallen by
/// `threshold` from their highest since the last time. glibc keeps what a flood of connections freed (their buffers
/// and handlers), and nothing in the server's own rhythm gives it back, so the process stayed as large as at the
/// flood's height (docs/performance.md#free-heap-after-a-flood-of-connections). A count that stays high is memory in
/// use, and a small fall is not worth a walk of the heap.
struct HeapTrimPolicy {
    enum Action: Equatable {
        /// Trim: the connections fell from this many.
        case trim(from: Int)
        case none
    }

    /// The fall in open connections, from their highest, that is worth a trim.
    let threshold: Int
    /// The most connections open at once since the last trim.
    private var highest = 0

    init(threshold: Int = 512) {
        self.threshold = max(1, threshold)
    }

    /// - Parameters:
    ///   - peak: the most connections open at once since the last look.
    ///   - open: the connections open now.
    mutating func look(peak: Int, open: Int) -> Action {
        highest = max(highest, peak, open)
        guard highest - open >= threshold else { return .none }
        defer { highest = open }
        return .trim(from: highest)
    }
}
