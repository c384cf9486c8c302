import Atomics

/// Places for distinct counters, shared by the stripes of a buffer, so that the cap counts counters in all of them.
final class CounterPlaces: Sendable {
    /// The most counters held.
    let capacity: Int
    private let held = ManagedAtomic<Int>(0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Counters held now.
    var count: Int { held.load(ordering: .relaxed) }

    /// Takes a place for one more counter, if there is one.
    func reserve() -> Bool {
        if held.loadThenWrappingIncrement(ordering: .relaxed) < capacity { return true }
        held.wrappingDecrement(ordering: .relaxed)
        return false
    }

    /// Gives back the places of `count` counters.
    func release(_ count: Int) {
        held.wrappingDecrement(by: count, ordering: .relaxed)
    }
}
