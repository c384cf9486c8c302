import Foundation
import NIOCore
import NIOPosix
import PostgresNIO

/// Looks short links up by domain and code, many to a query. Clicks spread over a million links miss the link cache
/// one after another; each miss a query of its own kept the process waiting on round trips through the pool, a core
/// left idle (docs/performance.md#postgresql-lookups-in-batches). Lookups that arrive while a query is out wait for the
/// next one, which asks for all of them (up to `maximumBatch`); more queries run at once (up to `maximumQueries`)
/// only while more than a batch waits. A lookup that finds no query out goes at once, so a quiet server answers as
/// fast as before. A drain (a query and those that follow it while lookups wait) runs in one `Session`, which the
/// PostgreSQL store gives one leased connection.
///
/// The answers are the same as one query each: the rows of exactly the keys asked for (compared byte by byte), a
/// row that cannot be read failing only its own lookups, and a query that fails failing the lookups it carried. Each
/// lookup has its own deadline, `wait` after it was asked (up to `deadlineGranularity` later), whether it is still
/// waiting or in a query that does not answer: a database that stops answering costs every click `wait` (then 503),
/// however many wait behind it. At most `maximumWaiting` lookups wait; past that a lookup fails as unavailable at once
/// instead of queueing without bound.
final class LinkLookupBatcher: @unchecked Sendable {
    // @unchecked: `waiting`, `order`, `running` and `deadlines` are guarded by `lock`.

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

    /// One lookup's continuation, resumed once: by its query's answer or by its deadline, whichever comes first.
    final class Waiter: @unchecked Sendable {
        // @unchecked: `continuation` is guarded by `lock`, `deadlines` by the batcher's lock.
        private let lock = NSLock()
        private var continuation: CheckedContinuation<ShortLinkRecord?, any Error>?
        /// The deadline group that holds this lookup until it is answered.
        fileprivate var deadlines: DeadlineGroup?
        /// The event loop the lookup was asked on (nil off NIO's singleton loops), where its answer is handed back.
        let loop: (any EventLoop)?

        /// The loops of NIO's singleton group, where the server runs its tasks: they never shut down, and a task handed
        /// to a loop that has is dropped without a word (its lookup would never be answered).
        private static let singletonLoops = Set(MultiThreadedEventLoopGroup.singleton.makeIterator().map { ObjectIdentifier($0) })

        static var currentSingletonLoop: (any EventLoop)? {
            guard let loop = MultiThreadedEventLoopGroup.currentEventLoop, singletonLoops.contains(ObjectIdentifier(loop)) else { return nil }
            return loop
        }

        init(_ continuation: CheckedContinuation<ShortLinkRecord?, any Error>, loop: (any EventLoop)?) {
            self.continuation = continuation
            self.loop = loop
        }

        var answered: Bool { lock.withLock { continuation == nil } }

        func resume(with result: Result<ShortLinkRecord?, any Error>) {
            let continuation = lock.withLock {
                defer { self.continuation = nil }
                return self.continuation
            }
            continuation?.resume(with: result)
        }

        /// Resumes each lookup on the event loop it was asked on, one hop for all those of a loop. A continuation
        /// resumed here would carry its request on this thread's loop (NIO's global executor stays on the loop it is
        /// asked from): the loop of the database connection did the rest of every request whose link it looked up,
        /// and wrote each response across to the request's own loop, so one loop was far busier than the other
        /// (docs/performance.md#answers-on-the-loop-that-asked).
        static func resume(_ answers: [(Waiter, Result<ShortLinkRecord?, any Error>)]) {
            var elsewhere: [ObjectIdentifier: (loop: any EventLoop, answers: [(Waiter, Result<ShortLinkRecord?, any Error>)])] = [:]
            for (waiter, result) in answers {
                guard let loop = waiter.loop, !loop.inEventLoop else {
                    waiter.resume(with: result)
                    continue
                }
                elsewhere[ObjectIdentifier(loop), default: (loop, [])].answers.append((waiter, result))
            }
            for (loop, answers) in elsewhere.values {
                loop.execute { for (waiter, result) in answers { waiter.resume(with: result) } }
            }
        }
    }

    /// The lookups asked within one `deadlineGranularity`, which share one timer: a timer of its own for every lookup
    /// (scheduled, then cancelled when the answer came) was a noticeable part of what a cache miss cost the process.
    /// A lookup leaves its group when answered, so the groups hold only lookups waiting or in a query, not every
    /// lookup of the last `wait` (with a long wait, the process grew with every lookup;
    /// docs/performance.md#lookup-deadlines-sharing-a-timer).
    fileprivate final class DeadlineGroup: @unchecked Sendable {
        // @unchecked: `lookups` is guarded by the batcher's `lock`.
        let opened: ContinuousClock.Instant
        var lookups: [ObjectIdentifier: (waiter: Waiter, key: Key)] = [:]

        init(opened: ContinuousClock.Instant) {
            self.opened = opened
        }
    }

    /// Runs `body` after `delay`.
    typealias Schedule = @Sendable (Duration, @escaping @Sendable () -> Void) -> Void
    /// One query's answer: each key's record, nil when there is none, or the error that stopped its row.
    typealias Answers = [Key: Result<ShortLinkRecord?, any Error>]

    typealias Fetch = @Sendable ([Key]) async throws -> Answers
    /// A drain's way to the database: calls `batches` once, with the fetch for all its batches (PostgreSQL's store
    /// leases one connection for them), and returns what it returned.
    typealias Session = @Sendable (_ batches: (Fetch) async -> Bool) async -> Bool

    let maximumQueries: Int
    let maximumBatch: Int
    let maximumWaiting: Int
    let wait: Duration
    /// How much later than `wait` a lookup may fail: lookups asked within it share a deadline timer.
    let deadlineGranularity: Duration
    /// How long a session may carry batches before its connection goes back to the pool.
    let sessionLength: Duration
    private let schedule: Schedule
    private let lock = NSLock()
    private var waiting: [Key: [Waiter]] = [:]
    private var waitingCount = 0
    /// Keys in the order they were first asked for, from `head`: batches are taken oldest first.
    private var order: [Key] = []
    private var head = 0
    private var running = 0
    /// The group new lookups join while it is younger than `deadlineGranularity`.
    private var deadlines: DeadlineGroup?
    private var heldForDeadlines = 0

    /// - Parameters:
    ///   - wait: how long a lookup may take, waiting and in its query, before it fails as unavailable.
    ///   - deadlineGranularity: how much later than `wait` a lookup may fail (a hundredth of `wait` by default, at
    ///     most 10 ms).
    ///   - sessionLength: how long a session may carry batches before its connection goes back to the pool.
    ///   - schedule: runs the deadlines (an event loop's timers by default).
    init(
        maximumQueries: Int = 4, maximumBatch: Int = 256, maximumWaiting: Int = 20_000, wait: Duration = .seconds(1),
        deadlineGranularity: Duration? = nil, sessionLength: Duration = .milliseconds(50),
        schedule: @escaping Schedule = LinkLookupBatcher.eventLoopTimer
    ) {
        self.maximumQueries = max(1, maximumQueries)
        self.maximumBatch = max(1, maximumBatch)
        self.maximumWaiting = max(1, maximumWaiting)
        self.wait = wait
        self.deadlineGranularity = max(.zero, deadlineGranularity ?? min(wait / 100, .milliseconds(10)))
        self.sessionLength = sessionLength
        self.schedule = schedule
    }

    /// A timer on one of postgres-nio's event loops (the calling thread's, when it is one): cheaper than a task
    /// sleeping out the wait.
    static let eventLoopTimer: Schedule = { delay, body in
        PostgresClient.defaultEventLoopGroup.any().scheduleTask(in: TimeAmount(delay)) { body() }
    }

    /// The link of `domain` and `code`, or nil when there is none.
    /// - Parameter fetch: one query for the keys given (at most `maximumBatch`, distinct), answering each; used by
    ///   the batches this lookup starts (every caller passes the same).
    func link(domain: String, code: String, fetch: @escaping Fetch) async throws -> ShortLinkRecord? {
        try await link(domain: domain, code: code) { batches in await batches(fetch) }
    }

    /// The link of `domain` and `code`, or nil when there is none.
    /// - Parameter session: runs the batches this lookup starts (every caller passes the same).
    func link(domain: String, code: String, session: @escaping Session) async throws -> ShortLinkRecord? {
        let key = Key(domain: domain, code: code)
        return try await withCheckedThrowingContinuation { continuation in
            let waiter = Waiter(continuation, loop: Waiter.currentSingletonLoop)
            let now = ContinuousClock.now
            let decision = lock.withLock { () -> (start: Bool, refused: Bool, newDeadlines: DeadlineGroup?) in
                // Expired keys stay queued until a batch skips them: twice the cap bounds those too.
                guard waitingCount < maximumWaiting, order.count - head < 2 * maximumWaiting else { return (false, true, nil) }
                waitingCount += 1
                if waiting[key]?.append(waiter) == nil {
                    waiting[key] = [waiter]
                    order.append(key)
                }
                var newDeadlines: DeadlineGroup?
                let group: DeadlineGroup
                if let current = deadlines, now - current.opened < deadlineGranularity {
                    group = current
                } else {
                    group = DeadlineGroup(opened: now)
                    deadlines = group
                    newDeadlines = group
                }
                group.lookups[ObjectIdentifier(waiter)] = (waiter, key)
                waiter.deadlines = group
                heldForDeadlines += 1
                // Another query only when more wait than one batch carries: the one running keeps its session (and
                // connection) while lookups come, and its next batch carries them all. Queries started for every
                // few keys each ended after one batch, and at a million links at random four at once cost more CPU
                // and a longer p99 than one (docs/performance.md#postgresql-lookups-in-batches).
                guard running == 0 || (running < maximumQueries && waitingCount >= maximumBatch) else {
                    return (false, false, newDeadlines)
                }
                running += 1
                return (true, false, newDeadlines)
            }
            if decision.refused {
                waiter.resume(with: .failure(StoreError.unavailable("too many link lookups are waiting for the database (\(maximumWaiting))")))
                return
            }
            if let group = decision.newDeadlines {
                // The group's last lookup joins it up to `deadlineGranularity` after it opened: none fails early.
                schedule(wait + deadlineGranularity) { [weak self] in self?.expire(group) }
            }
            if decision.start { Task { await self.drain(session) } }
        }
    }

    /// Fails the group's lookups that are still unanswered: out of the queue if they still wait there, and their
    /// query's answer, if it comes later, is dropped.
    private func expire(_ group: DeadlineGroup) {
        let lookups = lock.withLock {
            if deadlines === group { deadlines = nil }
            defer { group.lookups = [:] }
            for (waiter, _) in group.lookups.values { waiter.deadlines = nil }
            heldForDeadlines -= group.lookups.count
            return group.lookups.values
        }
        let failure = StoreError.unavailable("the database did not answer a link lookup within \(wait)")
        var failed: [(Waiter, Result<ShortLinkRecord?, any Error>)] = []
        for (waiter, key) in lookups where !waiter.answered {
            lock.withLock {
                guard var waiters = waiting[key], let index = waiters.firstIndex(where: { $0 === waiter }) else { return }
                waiters.remove(at: index)
                waitingCount -= 1
                // The key stays in `order`; `next` skips keys nobody waits for any more.
                waiting[key] = waiters.isEmpty ? nil : waiters
            }
            failed.append((waiter, .failure(failure)))
        }
        Waiter.resume(failed)
    }

    /// Lookups waiting now (for tests and metrics).
    var waitingLookups: Int { lock.withLock { waitingCount } }
    /// Lookups their deadline groups hold now: those waiting or in a query (for tests).
    var lookupsAwaitingDeadlines: Int { lock.withLock { heldForDeadlines } }

    /// Queries batches until nothing waits, in sessions: a failed query ends its session (its connection may be the
    /// trouble), and so does one that has lasted `sessionLength` (its connection goes back to the pool, where other
    /// work may wait for it: with a pool of two, one of them LISTENing, API requests waited behind a drain for over
    /// a second); what still waits goes in a new one.
    private func drain(_ session: Session) async {
        while await !session({ fetch in await self.answerBatches(fetch) }) {}
    }

    /// Answers batches with `fetch` until nothing waits (true, one query fewer running), or a query fails or the
    /// session has lasted `sessionLength` while lookups still wait (false, still running).
    private func answerBatches(_ fetch: Fetch) async -> Bool {
        let started = ContinuousClock.now
        while let batch = next() {
            guard !batch.isEmpty else { continue }
            let keys = batch.map(\.key)
            let result: Result<Answers, any Error>
            do {
                result = .success(try await fetch(keys))
            } catch {
                result = .failure(error)
            }
            answered(batch)
            switch result {
            case .success(let answers):
                Waiter.resume(batch.flatMap { key, waiters in waiters.map { ($0, answers[key] ?? .success(nil)) } })
            case .failure(let error):
                Waiter.resume(batch.flatMap { _, waiters in waiters.map { ($0, .failure(error)) } })
                return finishIfNothingWaits()
            }
            if ContinuousClock.now - started >= sessionLength { return finishIfNothingWaits() }
        }
        return true
    }

    /// Takes a batch's lookups out of their deadline groups.
    private func answered(_ batch: [(key: Key, waiters: [Waiter])]) {
        lock.withLock {
            for (_, waiters) in batch {
                for waiter in waiters {
                    guard let group = waiter.deadlines else { continue }
                    group.lookups[ObjectIdentifier(waiter)] = nil
                    // An emptied dictionary keeps its capacity: let it go until the group's timer fires.
                    if group.lookups.isEmpty { group.lookups = [:] }
                    waiter.deadlines = nil
                    heldForDeadlines -= 1
                }
            }
        }
    }

    /// Whether no lookup waits, and then one query fewer running (keys left in `order` all expired).
    private func finishIfNothingWaits() -> Bool {
        lock.withLock {
            guard waitingCount == 0 else { return false }
            running -= 1
            order.removeAll(keepingCapacity: true)
            head = 0
            return true
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
                // A key whose lookups all expired is not asked for.
                guard let waiters = waiting.removeValue(forKey: key) else { continue }
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
