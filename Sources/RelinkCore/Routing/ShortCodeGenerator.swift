/// Makes short-link codes. The random source is a parameter, so tests can fix it; production passes
/// `SystemRandomNumberGenerator`, which reads the OS's cryptographic generator.
public enum ShortCodeGenerator {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The length of an `UNGUESSABLE` code: 17 base-62 characters hold 96 random bits (62^17 > 2^101).
    public static let unguessableLength = 17
    /// The shortest `SHORT` code.
    public static let minimumShortLength = 4

    /// 96 random bits in base 62, left-padded to 17 characters.
    /// - Parameter generator: the source of randomness.
    /// - Returns: a 17-character code.
    public static func unguessable(using generator: inout some RandomNumberGenerator) -> String {
        var high = UInt64(UInt32.random(in: .min ... .max, using: &generator))
        var low = UInt64.random(in: .min ... .max, using: &generator)
        var digits: [UInt8] = []
        // Long division of the 96-bit number (high:32 bits, low:64 bits) by 62.
        while high != 0 || low != 0 {
            let highQuotient = high / 62
            let highRemainder = high % 62
            let (lowQuotient, remainder) = (62 as UInt64).dividingFullWidth((highRemainder, low))
            high = highQuotient
            low = lowQuotient
            digits.append(alphabet[Int(remainder)])
        }
        while digits.count < unguessableLength { digits.append(alphabet[0]) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// 128 random bits in base 62, left-padded to 22 characters (62^22 > 2^128, so every value has its own code).
    /// - Parameter generator: the source of randomness.
    /// - Returns: 128 random bits as 22 base-62 characters.
    public static func random128(using generator: inout some RandomNumberGenerator) -> String {
        var high = UInt64.random(in: .min ... .max, using: &generator)
        var low = UInt64.random(in: .min ... .max, using: &generator)
        var digits: [UInt8] = []
        digits.reserveCapacity(22)
        while high != 0 || low != 0 {
            let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: 62)
            let (lowQuotient, remainder) = (62 as UInt64).dividingFullWidth((highRemainder, low))
            high = highQuotient
            low = lowQuotient
            digits.append(alphabet[Int(remainder)])
        }
        while digits.count < 22 { digits.append(alphabet[0]) }
        return String(decoding: digits.reversed(), as: UTF8.self)
    }

    /// `length` random base-62 characters, uniformly distributed: ten characters per draw of one uniform number
    /// below 62^10 (one draw per character would cost a system call each with the system generator).
    /// - Parameters:
    ///   - length: how many characters.
    ///   - generator: the source of randomness.
    /// - Returns: a code of `length` base-62 characters.
    public static func random(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        var characters: [UInt8] = []
        characters.reserveCapacity(length)
        while characters.count < length {
            var value = UInt64.random(in: 0..<839_299_365_868_340_224, using: &generator)  // 62^10
            for _ in 0..<min(10, length - characters.count) {
                characters.append(alphabet[Int(value % 62)])
                value /= 62
            }
        }
        return String(decoding: characters, as: UTF8.self)
    }

    /// Whether `suffix` may be a `CUSTOM` code: `[A-Za-z0-9_-]{1,64}`.
    /// - Parameter suffix: a requested custom suffix.
    /// - Returns: true for 1 to 64 characters `A-Z a-z 0-9 _ -`.
    public static func isValidCustomSuffix(_ suffix: String) -> Bool {
        ShortCode(Substring(suffix)) != nil
    }
}
