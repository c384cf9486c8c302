import Foundation
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkStore

@Suite("Link lookups, many to a query")
struct LinkLookupBatcherTests {
    typealias Key = LinkLookupBatcher.Key

    /// A fetch the test holds until it lets go, and what it was asked.
    final class HeldFetch: @unchecked Sendable {
        private let lock = NSLock()
        private var released = false
        private var waiting: [CheckedContinuation<Void, Never>] = []
        private(set) var batches: [[Key]] = []
        let answer: @Sendable (Key) -> Result<ShortLinkRecord?, any Error>?
        let failing: @Sendable ([Key]) -> (any Error)?

        init(
            answer: @escaping @Sendable (Key) -> Result<ShortLinkRecord?, any Error>?,
            failing: @escaping @Sendable ([Key]) -> (any Error)? = { _ in nil }
        ) {
            self.answer = answer
            self.failing = failing
        }

        var asked: [[Key]] { lock.withLock { batches } }

        /// Holds the queries that come from now on until the next `release`.
        func hold() { lock.withLock { released = false } }

        func release() {
            let resumed = lock.withLock {
                released = true
                defer { waiting = [] }
                return waiting
            }
            for continuation in resumed { continuation.resume() }
        }

        func fetch(_ keys: [Key]) async throws -> LinkLookupBatcher.Answers {
            await withCheckedContinuation { continuation in
                let now = lock.withLock {
                    batches.append(keys)
                    if released { return true }
                    waiting.append(continuation)
                    return false
                }
                if now { continuation.resume() }
            }
            if let error = failing(keys) { throw error }
            var answers = LinkLookupBatcher.Answers()
            for key in keys { if let result = answer(key) { answers[key] = result } }
            return answers
        }
    }

    static func record(_ code: String, domain: String = "https://go.pictlink.com") -> ShortLinkRecord {
        var parameters = LinkParameters()
        parameters.link = "https://pictlink.com/\(code)"
        return ShortLinkDraft(
            projectId: "pictlink", domain: domain, code: code, longLink: "https://go.pictlink.com/?link=https://pictlink.com/\(code)",
            parameters: parameters, suffixOption: .short, idempotencyKey: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_000)
        ).record(id: 1)
    }

    /// Waits until `condition` holds (at most 10 s: a wait for tasks to start, not a measurement).
    static func eventually(_ condition: () -> Bool) async {
        for _ in 0..<10_000 where !condition() { try? await Task.sleep(for: .milliseconds(1)) }
    }

    @Test func lookupsWaitingForABusyQueryGoTogetherInTheNextEachKeyOnce() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 1, maximumBatch: 50, wait: .seconds(60))
        let fetch = HeldFetch { key in key.code.hasPrefix("known") ? .success(Self.record(key.code)) : nil }
        let codes = ["known-first"] + (0..<200).map { $0 % 3 == 0 ? "unknown\($0 % 10)" : "known\($0 % 80)" }
        let answers = try await withThrowingTaskGroup(of: (String, ShortLinkRecord?).self) { group in
            for (index, code) in codes.enumerated() {
                group.addTask {
                    (code, try await batcher.link(domain: "https://go.pictlink.com", code: code) { try await fetch.fetch($0) })
                }
                // The first lookup's query is out (and held) before the others come.
                if index == 0 { await Self.eventually { fetch.asked.count == 1 } }
            }
            await Self.eventually { batcher.waitingLookups == codes.count - 1 }
            #expect(batcher.waitingLookups == codes.count - 1)
            fetch.release()
            return try await group.reduce(into: [(String, ShortLinkRecord?)]()) { $0.append($1) }
        }
        #expect(answers.count == codes.count)
        for (code, record) in answers {
            #expect(record == (code.hasPrefix("known") ? Self.record(code) : nil), "\(code)")
        }
        // The first lookup went alone; the others waited and went in batches of 50 (the last fewer), each key once.
        let batches = fetch.asked
        #expect(batches.first?.map(\.code) == ["known-first"])
        let waited = batches.dropFirst()
        let keys = waited.flatMap { $0 }
        #expect(keys.count == Set(keys).count)
        #expect(Set(keys.map(\.code)) == Set(codes.dropFirst()))
        let distinct = Set(codes.dropFirst()).count
        #expect(distinct == 90)
        #expect(waited.map(\.count) == [50, 40])
        #expect(batcher.waitingLookups == 0)
    }

    /// Counts the sessions a batcher opens (a session is one leased connection on PostgreSQL).
    final class Sessions: @unchecked Sendable {
        private let lock = NSLock()
        private var opened = 0
        var count: Int { lock.withLock { opened } }

        func session(_ fetch: HeldFetch) -> LinkLookupBatcher.Session {
            { batches in
                self.lock.withLock { self.opened += 1 }
                return await batches { try await fetch.fetch($0) }
            }
        }
    }

    /// A drain's batches share one session while lookups keep coming; a query that fails ends its session (its
    /// connection may be the trouble) and what waits goes in a new one; a quiet batcher opens one for the next lookup.
    @Test func batchesShareASessionUntilAQueryFails() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 4, wait: .seconds(60), sessionLength: .seconds(60))
        let fetch = HeldFetch(
            answer: { key in .success(Self.record(key.code, domain: key.domain)) },
            failing: { keys in keys.contains { $0.code == "fails" } ? StoreError.unavailable("the connection was lost") : nil })
        let sessions = Sessions()
        func lookUp(_ codes: [String]) async -> [String: Bool] {
            let asked = fetch.asked.count
            return await withTaskGroup(of: (String, Bool).self) { group in
                for (index, code) in codes.enumerated() {
                    group.addTask {
                        let record = try? await batcher.link(domain: "d", code: code, session: sessions.session(fetch))
                        return (code, record == Self.record(code, domain: "d"))
                    }
                    // The first lookup's query is out (and held) before the others come.
                    if index == 0 { await Self.eventually { fetch.asked.count == asked + 1 } }
                }
                await Self.eventually { batcher.waitingLookups == codes.count - 1 }
                fetch.release()
                return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
        }
        // Ten lookups while the first one's query is out: fewer than a batch, so no second query and one session.
        let first = await lookUp(["first"] + (0..<10).map { "a\($0)" })
        #expect(first.values.allSatisfy { $0 })
        #expect(sessions.count == 1)
        #expect(fetch.asked.map(\.count) == [1, 10])
        // A quiet batcher: the next lookup opens a session of its own.
        #expect(try await batcher.link(domain: "d", code: "quiet", session: sessions.session(fetch)) == Self.record("quiet", domain: "d"))
        #expect(sessions.count == 2)
        // The first query fails: its lookup fails, and the ones waiting go in a new session.
        fetch.hold()
        let second = await lookUp(["fails"] + (0..<10).map { "b\($0)" })
        #expect(second["fails"] == false)
        #expect(second.filter { $0.key != "fails" }.values.allSatisfy { $0 })
        #expect(sessions.count == 4)
        #expect(batcher.waitingLookups == 0)
        // Answered lookups leave their deadline groups at once, not when the groups' timers fire (60 s from now).
        #expect(batcher.lookupsAwaitingDeadlines == 0)
    }

    /// A session that has lasted its length gives its connection back while lookups still wait (other work may be
    /// waiting for the pool); the waiting lookups go in a new one.
    @Test func aSessionEndsAfterItsLength() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 1, wait: .seconds(60), sessionLength: .zero)
        let fetch = HeldFetch(answer: { key in .success(Self.record(key.code, domain: key.domain)) })
        let sessions = Sessions()
        let answered = try await withThrowingTaskGroup(of: Bool.self) { group in
            for index in 0..<11 {
                group.addTask {
                    let code = "c\(index)"
                    return try await batcher.link(domain: "d", code: code, session: sessions.session(fetch)) == Self.record(code, domain: "d")
                }
                if index == 0 { await Self.eventually { fetch.asked.count == 1 } }
            }
            await Self.eventually { batcher.waitingLookups == 10 }
            #expect(batcher.lookupsAwaitingDeadlines == 11)
            fetch.release()
            return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(answered == 11)
        #expect(fetch.asked.map(\.count) == [1, 10])
        #expect(sessions.count == 2)
        #expect(batcher.lookupsAwaitingDeadlines == 0)
    }

    @Test func keysAreTheirBytes() async throws {
        let composed = Key(domain: "https://go.pictlink.com", code: "caf\u{E9}")
        let decomposed = Key(domain: "https://go.pictlink.com", code: "cafe\u{301}")
        #expect(composed != decomposed)
        #expect(Key(domain: "ab", code: "c") != Key(domain: "a", code: "bc"))
        #expect(Set([composed, decomposed, composed]).count == 2)
        let batcher = LinkLookupBatcher(maximumQueries: 1, wait: .seconds(60))
        let fetch = HeldFetch { key in key.code.utf8.elementsEqual("caf\u{E9}".utf8) ? .success(Self.record(key.code)) : .success(nil) }
        async let held = batcher.link(domain: "d", code: "held") { try await fetch.fetch($0) }
        await Self.eventually { fetch.asked.count == 1 }
        async let first = batcher.link(domain: composed.domain, code: composed.code) { try await fetch.fetch($0) }
        async let second = batcher.link(domain: decomposed.domain, code: decomposed.code) { try await fetch.fetch($0) }
        await Self.eventually { batcher.waitingLookups == 2 }
        fetch.release()
        #expect(try await held == nil)
        #expect(try await first == Self.record("caf\u{E9}"))
        #expect(try await second == nil)
        // Both in one query, as two keys.
        #expect(fetch.asked.last?.count == 2)
    }

    struct Broken: Error, Equatable {
        var what: String
    }

    @Test func aRowThatCannotBeReadFailsItsOwnLookupsAndAFailedQueryOnlyItsOwn() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 1, maximumBatch: 3, wait: .seconds(60))
        let fetch = HeldFetch(
            answer: { key in key.code == "bad" ? .failure(Broken(what: "row")) : .success(Self.record(key.code, domain: key.domain)) },
            failing: { keys in keys.contains { $0.code == "down" } ? Broken(what: "query") : nil })
        let codes = ["first", "bad", "good", "bad", "x1", "x2", "down", "x3"]
        let results = await withTaskGroup(of: (String, Result<ShortLinkRecord?, Broken>).self) { group in
            for (index, code) in codes.enumerated() {
                group.addTask {
                    do {
                        return (code, .success(try await batcher.link(domain: "d", code: code) { try await fetch.fetch($0) }))
                    } catch let error as Broken {
                        return (code, .failure(error))
                    } catch {
                        return (code, .failure(Broken(what: "\(error)")))
                    }
                }
                if index == 0 { await Self.eventually { fetch.asked.count == 1 } }
            }
            await Self.eventually { batcher.waitingLookups == codes.count - 1 }
            fetch.release()
            return await group.reduce(into: [(String, Result<ShortLinkRecord?, Broken>)]()) { $0.append($1) }
        }
        let failedQuery = Set(fetch.asked.first { $0.contains { $0.code == "down" } }?.map(\.code) ?? [])
        #expect(failedQuery.contains("down"))
        for (code, result) in results {
            if failedQuery.contains(code) {
                #expect(result == .failure(Broken(what: "query")), "\(code)")
            } else if code == "bad" {
                #expect(result == .failure(Broken(what: "row")))
            } else {
                #expect(result == .success(Self.record(code, domain: "d")), "\(code)")
            }
        }
        // It keeps answering afterwards.
        fetch.release()
        #expect(try await batcher.link(domain: "d", code: "later") { try await fetch.fetch($0) } == Self.record("later", domain: "d"))
    }

    @Test func pastItsCapALookupIsRefusedAsUnavailableAtOnce() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 1, maximumWaiting: 5, wait: .seconds(60))
        let fetch = HeldFetch { _ in .success(nil) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<6 {
                group.addTask { _ = try await batcher.link(domain: "d", code: "c\(index)") { try await fetch.fetch($0) } }
                if index == 0 { await Self.eventually { fetch.asked.count == 1 } }
            }
            // One out in the held query, five waiting: the cap.
            await Self.eventually { batcher.waitingLookups == 5 }
            await #expect(throws: StoreError.self) {
                try await batcher.link(domain: "d", code: "one-too-many") { try await fetch.fetch($0) }
            }
            #expect(batcher.waitingLookups == 5)
            fetch.release()
            try await group.waitForAll()
        }
        #expect(batcher.waitingLookups == 0)
        #expect(try await batcher.link(domain: "d", code: "after") { try await fetch.fetch($0) } == nil)
    }

    /// A database that stops answering: the lookup in the query and the ones waiting behind it each fail at their own
    /// deadline, not one query timeout after another; the answer that comes late is dropped.
    /// Its lookups have 200 ms each, the last one too: it measures time.
    @Test(.measuresTime) func everyLookupFailsAtItsOwnDeadlineWhenTheDatabaseDoesNotAnswer() async throws {
        let batcher = LinkLookupBatcher(maximumQueries: 1, wait: .milliseconds(200))
        let fetch = HeldFetch { key in .success(Self.record(key.code, domain: key.domain)) }
        let codes = ["held"] + (0..<50).map { "waiting\($0)" }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for (index, code) in codes.enumerated() {
                group.addTask {
                    do {
                        _ = try await batcher.link(domain: "d", code: code) { try await fetch.fetch($0) }
                        return false
                    } catch {
                        return error is StoreError
                    }
                }
                if index == 0 { await Self.eventually { fetch.asked.count == 1 } }
            }
            // The first query never answers while they wait.
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == codes.count)
        #expect(batcher.waitingLookups == 0)
        // The late answer goes nowhere; keys nobody waits for are not asked for; lookups work again.
        fetch.release()
        #expect(try await batcher.link(domain: "d", code: "after") { try await fetch.fetch($0) } == Self.record("after", domain: "d"))
        #expect(fetch.asked.dropFirst().allSatisfy { $0.map(\.code) == ["after"] })
    }
}
