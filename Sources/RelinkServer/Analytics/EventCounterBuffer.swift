import RelinkCore
import RelinkStore

/// A stripe of the click-event buffer: one counter per (link, day, platform, event) touched since the last write, not
/// one entry per event, each counter taking one of the `places` shared by the stripes.
struct EventCounterBuffer: WriteBuffer {
    private(set) var counts: [EventCounterKey: Int64] = [:]
    /// The batch being written: not in `counts` any more, not in the store yet.
    private(set) var writing: [EventCounterKey: Int64] = [:]
    /// Events recorded into this stripe, and of those dropped because the buffer was full, since start.
    private(set) var recorded: Int64 = 0
    private(set) var dropped: Int64 = 0
    /// Moves by one when a batch is taken and again when its write ends: odd while a write of this stripe runs. A
    /// reader of the store that finds it unchanged around its read knows no write of this stripe overlapped it.
    private(set) var writes: UInt64 = 0
    let places: CounterPlaces

    init(places: CounterPlaces) {
        self.places = places
    }

    /// Counts one event: in its counter, or in a new one if there is a place for it.
    mutating func record(_ key: EventCounterKey) -> RecordAction {
        recorded += 1
        if let index = counts.index(forKey: key) {
            counts.values[index] += 1
        } else if places.reserve() {
            counts[key] = 1
        } else {
            dropped += 1
            return .dropped
        }
        return .kept
    }

    /// Events here and not yet in the store: buffered or being written.
    var unwritten: Int64 {
        counts.values.reduce(0, +) + writing.values.reduce(0, +)
    }

    /// Human clicks on `linkId` here and not yet in the store: buffered or being written. Scans the stripe: only links
    /// with a limit ask.
    func unwrittenClicks(linkId: Int64) -> Int64 {
        var total: Int64 = 0
        for (key, count) in counts where key.linkId == linkId && key.event == .click && key.platform != .crawler { total += count }
        for (key, count) in writing where key.linkId == linkId && key.event == .click && key.platform != .crawler { total += count }
        return total
    }

    mutating func takeBatch() -> [EventCounterKey: Int64] {
        // Handed over without a copy, and a new table of the same size put in its place: clearing a table that
        // `writing` still shares would copy it under the lock, holding back the clicks arriving meanwhile.
        // The batch keeps its places until it is written: counters held in memory, buffered or being written, stay
        // within the cap however slow the store is.
        let batch = counts
        counts = Dictionary(minimumCapacity: min(batch.count, places.capacity))
        writing = batch
        writes &+= 1
        return batch
    }

    mutating func writeSucceeded() {
        places.release(writing.count)
        writing = [:]
        writes &+= 1
    }

    /// Puts the counts back (the next write retries them), each counter in its own place or merged into the same
    /// counter recorded since (whose place then suffices); nothing is dropped, so it returns 0.
    mutating func writeFailed(_ batch: [EventCounterKey: Int64]) -> Int {
        writing = [:]
        writes &+= 1
        var merged = 0
        for (key, count) in batch {
            if let index = counts.index(forKey: key) {
                counts.values[index] += count
                merged += 1
            } else {
                counts[key] = count
            }
        }
        places.release(merged)
        return 0
    }

    static func count(of batch: [EventCounterKey: Int64]) -> Int { batch.count }
}
