import NIOConcurrencyHelpers

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The operating system's cryptographic random bytes, read 256 at a time (`getentropy`'s most) and each handed out
/// once. `SystemRandomNumberGenerator` (and swift-crypto's keys, which draw from it) makes a system call for every
/// 64-bit draw, which cost a click more than the rest of its id (docs/performance.md#less-work-per-kept-click).
/// The pool holds the next few ids' randomness in the process's memory, where the ids themselves are anyway.
final class RandomPool: Sendable {
    static let shared = RandomPool()

    /// A generator drawing from the shared pool.
    struct Generator: RandomNumberGenerator {
        mutating func next() -> UInt64 { RandomPool.shared.next() }
    }

    private struct State {
        var words = [UInt64](repeating: 0, count: 32)
        var used = 32
    }

    private let state = NIOLockedValueBox(State())

    func next() -> UInt64 {
        state.withLockedValue { state in
            if state.used == state.words.count {
                let read = state.words.withUnsafeMutableBytes { getentropy($0.baseAddress!, $0.count) }
                if read != 0 {
                    // Not expected on any supported system; the standard generator has never failed there.
                    var system = SystemRandomNumberGenerator()
                    for index in state.words.indices { state.words[index] = system.next() }
                }
                state.used = 0
            }
            defer { state.used += 1 }
            return state.words[state.used]
        }
    }
}
