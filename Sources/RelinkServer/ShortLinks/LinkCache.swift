import Foundation
import NIOConcurrencyHelpers
import RelinkStore

/// Short links by domain and code, in memory, so a click does not query the database: a hit costs one locked
/// dictionary lookup. Edits made through this instance replace their entry at once; with a shared store
/// (PostgreSQL), other instances' edits arrive through `apply(_:)` within milliseconds. As a backstop, entries are
/// re-read after `maximumAge`, and unknown codes are remembered for `missingAge` only.
public final class LinkCache: Sendable {
    struct Key: Hashable {
        let domain: String
        let code: String
    }

    struct Entry {
        let link: ShortLinkRecord?
        let loaded: ContinuousClock.Instant
        /// What clicks derive from the link, made on first use.
        let resolved: ResolvedBox

        init(link: ShortLinkRecord?, loaded: ContinuousClock.Instant) {
            self.link = link
            self.loaded = loaded
            self.resolved = ResolvedBox()
        }
    }

    /// Holds the entry's `ResolvedShortLink` once a click has made it.
    final class ResolvedBox: Sendable {
        private let value = NIOLockedValueBox<ResolvedShortLink?>(nil)

        func get(orMake make: () -> ResolvedShortLink) -> ResolvedShortLink {
            value.withLockedValue { box in
                if let resolved = box { return resolved }
                let resolved = make()
                box = resolved
                return resolved
            }
        }
    }

    /// The entries, and a count of invalidations: a load that started before an invalidation may have read the
    /// old row, so its result is used once but not kept.
    private let entries = NIOLockedValueBox<(entries: [Key: Entry], generation: UInt64)>(([:], 0))
    private let clock = ContinuousClock()
    let capacity: Int
    let maximumAge: Duration
    let missingAge: Duration

    public init(capacity: Int = 100_000, maximumAge: Duration = .seconds(300), missingAge: Duration = .seconds(5)) {
        self.capacity = capacity
        self.maximumAge = maximumAge
        self.missingAge = missingAge
    }

    /// The link, from memory when fresh, else from `load` (whose answer, found or not, is remembered).
    public func link(domain: String, code: String, load: () async throws -> ShortLinkRecord?) async throws -> ShortLinkRecord? {
        try await entry(domain: domain, code: code, load: load).link
    }

    func entry(domain: String, code: String, load: () async throws -> ShortLinkRecord?) async throws -> Entry {
        let key = Key(domain: domain, code: code)
        let now = clock.now
        let (cached, generation) = entries.withLockedValue { ($0.entries[key], $0.generation) }
        if let cached, now - cached.loaded < (cached.link == nil ? missingAge : maximumAge) {
            return cached
        }
        let entry = Entry(link: try await load(), loaded: clock.now)
        put(key, entry, ifGeneration: generation)
        return entry
    }

    /// Replaces the entry for a link this instance created or changed.
    public func store(_ link: ShortLinkRecord) {
        put(Key(domain: link.domain, code: link.code), Entry(link: link, loaded: clock.now))
    }

    /// Forgets a link, so the next click reads it again.
    public func invalidate(domain: String, code: String) {
        entries.withLockedValue { state in
            state.entries.removeValue(forKey: Key(domain: domain, code: code))
            state.generation &+= 1
        }
    }

    public func removeAll() {
        entries.withLockedValue { state in
            state.entries.removeAll()
            state.generation &+= 1
        }
    }

    /// A change another instance made (or a reset of the change feed).
    public func apply(_ change: LinkChange) {
        switch change {
        case .link(let domain, let code): invalidate(domain: domain, code: code)
        case .all: removeAll()
        }
    }

    var count: Int { entries.withLockedValue { $0.entries.count } }

    private func put(_ key: Key, _ entry: Entry, ifGeneration generation: UInt64? = nil) {
        entries.withLockedValue { state in
            if let generation, state.generation != generation { return }
            // Past capacity, start over rather than track recency on every hit: the hot links return at once.
            if state.entries.count >= capacity, state.entries[key] == nil { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = entry
        }
    }
}
