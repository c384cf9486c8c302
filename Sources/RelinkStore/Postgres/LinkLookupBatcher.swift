import Foundation

/// Looks short links up by domain and code, many to a query. Clicks spread over a million links miss the link cache
/// one after another; each miss a query of its own kept the process waiting on round trips through the pool (a
/// million links at random: 8k clicks/s, about one core idle). Lookups that arrive while `maximumQueries` queries
/// are out wait for the next one, which asks for all of them (up to `maximumBatch`); a lookup that finds a query
/// free goes at once, so a quiet server answers as fast as before.
///
/// The answers are the same as one query each: the rows of exactly the keys asked for (compared byte by byte), a
/// row that cannot be read failing only its own lookups, and a query that fails or times out (the store's `wait`)
/// failing the lookups it carried. At most `maximumWaiting` lookups wait; past that a lookup fails as unavailable
/// instead of queueing without bound.
final class LinkLookupBatcher: @unchecked Sendable {
    // @unchecked: `waiting`, `order` and `running` are guarded by `lock`.

    /// A link's domain and code, equal only when their bytes are (Swift's `==` on strings would make canonically
    /// equivalent spellings one key).
    struct Key: Hashable, Sendable {
        var domain: String
        var code: String

        static func == (a: Key, b: Key) -> Bool {
            a.domain.utf8.elementsEqual(b.domain.utf8) && a.code.utf8.elementsEqual(b.code.utf8)
        }

        func hash(into hasher: inout Hasher) {
            Self.combine(domain, into: &hasher)
            Self.combine(code, into: &hasher)
        }

        private static func combine(_ text: String, into hasher: inout Hasher) {
            hasher.combine(text.utf8.count)
            let hashed: Void? = text.utf8.withContiguousStorageIfAvailable { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
            if hashed == nil { for byte in text.utf8 { hasher.combine(byte) } }
        }
    }

    typealias Waiter = CheckedContinuation<ShortLinkRecord?, any Error>
    /// One query's answer: each key's record, nil when there is none, or the error that stopped its row.
    typealias Answers = [Key: Result<ShortLinkRecord?, any Error>]

    typealias Fetch = @Sendable ([Key]) async throws -> Answers

    let maximumQueries: Int
    let maximumBatch: Int
    let maximumWaiting: Int
    private let lock = NSLock()
    private var waiting: [Key: [Waiter]] = [:]
    private var waitingCount = 0
    /// Keys in the order they were first asked for, from `head`: batches are taken oldest first.
    private var order: [Key] = []
    private var head = 0
    private var running = 0

    init(maximumQueries: Int = 4, maximumBatch: Int = 256, maximumWaiting: Int = 20_000) {
        self.maximumQueries = max(1, maximumQueries)
        self.maximumBatch = max(1, maximumBatch)
        self.maximumWaiting = max(1, maximumWaiting)
    }

    /// The link of `domain` and `code`, or nil when there is none.
    /// - Parameter fetch: one query for the keys given (at most `maximumBatch`, distinct), answering each; used by
    ///   the batches this lookup starts (every caller passes the same).
    func link(domain: String, code: String, fetch: @escaping Fetch) async throws -> ShortLinkRecord? {
        let key = Key(domain: domain, code: code)
        return try await withCheckedThrowingContinuation { (waiter: Waiter) in
            let decision = lock.withLock { () -> (start: Bool, refused: Bool) in
                guard waitingCount < maximumWaiting else { return (false, true) }
                waitingCount += 1
                if waiting[key]?.append(waiter) == nil {
                    waiting[key] = [waiter]
                    order.append(key)
                }
                guard running < maximumQueries else { return (false, false) }
                running += 1
                return (true, false)
            }
            if decision.refused {
                waiter.resume(throwing: StoreError.unavailable("too many link lookups are waiting for the database (\(maximumWaiting))"))
            } else if decision.start {
                Task { await self.drain(fetch) }
            }
        }
    }

    /// Lookups waiting now (for tests and metrics).
    var waitingLookups: Int { lock.withLock { waitingCount } }

    /// Queries batches until nothing waits.
    private func drain(_ fetch: Fetch) async {
        while let batch = next() {
            let keys = batch.map(\.key)
            do {
                let answers = try await fetch(keys)
                for (key, waiters) in batch {
                    let answer = answers[key] ?? .success(nil)
                    for waiter in waiters { waiter.resume(with: answer) }
                }
            } catch {
                for (_, waiters) in batch {
                    for waiter in waiters { waiter.resume(throwing: error) }
                }
            }
        }
    }

    /// The oldest waiting keys, at most `maximumBatch`, taken out of the queue; nil (and one query fewer running)
    /// when none wait.
    private func next() -> [(key: Key, waiters: [Waiter])]? {
        lock.withLock {
            guard head < order.count else {
                running -= 1
                order.removeAll(keepingCapacity: true)
                head = 0
                return nil
            }
            let end = min(order.count, head + maximumBatch)
            var batch: [(key: Key, waiters: [Waiter])] = []
            batch.reserveCapacity(end - head)
            for key in order[head..<end] {
                let waiters = waiting.removeValue(forKey: key) ?? []
                waitingCount -= waiters.count
                batch.append((key, waiters))
            }
            head = end
            if head == order.count {
                order.removeAll(keepingCapacity: true)
                head = 0
            } else if head > 4_096 && head * 2 > order.count {
                order.removeFirst(head)
                head = 0
            }
            return batch
        }
    }
}
