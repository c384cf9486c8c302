import Foundation
import NIOConcurrencyHelpers
import RelinkStore

/// Short links by domain and code, in memory, so a click does not query the database: a hit costs one locked
/// dictionary lookup. Edits made through this instance replace their entry at once; entries are also re-read
/// after `maximumAge` (the bound on staleness for changes made elsewhere), and unknown codes are remembered
/// for `missingAge` only, so a code minted elsewhere starts working within that time.
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

    private let entries = NIOLockedValueBox<[Key: Entry]>([:])
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
        if let entry = entries.withLockedValue({ $0[key] }),
            now - entry.loaded < (entry.link == nil ? missingAge : maximumAge)
        {
            return entry
        }
        let entry = Entry(link: try await load(), loaded: clock.now)
        put(key, entry)
        return entry
    }

    /// Replaces the entry for a link this instance created or changed.
    public func store(_ link: ShortLinkRecord) {
        put(Key(domain: link.domain, code: link.code), Entry(link: link, loaded: clock.now))
    }

    /// Forgets a link, so the next click reads it again.
    public func invalidate(domain: String, code: String) {
        _ = entries.withLockedValue { $0.removeValue(forKey: Key(domain: domain, code: code)) }
    }

    public func removeAll() {
        entries.withLockedValue { $0.removeAll() }
    }

    private func put(_ key: Key, _ entry: Entry) {
        entries.withLockedValue { entries in
            // Past capacity, start over rather than track recency on every hit: the hot links return at once.
            if entries.count >= capacity, entries[key] == nil { entries.removeAll(keepingCapacity: true) }
            entries[key] = entry
        }
    }
}
