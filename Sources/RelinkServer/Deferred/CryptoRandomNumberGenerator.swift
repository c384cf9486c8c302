import Crypto

/// Random numbers from swift-crypto's generator (BoringSSL's `RAND_bytes`: a per-thread DRBG that the operating
/// system seeds), drawn 32 bytes at a time. `SystemRandomNumberGenerator` makes a system call for every 64-bit
/// draw, which cost a click more than the rest of its id (docs/performance.md#less-work-per-kept-click).
struct CryptoRandomNumberGenerator: RandomNumberGenerator {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    private var remaining = 0

    mutating func next() -> UInt64 {
        if remaining == 0 {
            let key = SymmetricKey(size: .bits256)
            key.withUnsafeBytes { bytes in
                withUnsafeMutableBytes(of: &words) { $0.copyMemory(from: bytes) }
            }
            remaining = 4
        }
        remaining -= 1
        switch remaining {
        case 3: return words.0
        case 2: return words.1
        case 1: return words.2
        default: return words.3
        }
    }
}
