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

    /// The length of a `timeOrdered` id.
    public static let timeOrderedLength = 22

    /// An id that sorts by the second it was made: that second in 6 base-62 characters (fixed width, enough until
    /// the year 3770), then 16 random ones (95 random bits, as many as an `UNGUESSABLE` code), 22 in all. Ids made
    /// later sort after earlier ones (in byte order, SQLite's), and the ids of one second sit together in any order:
    /// a store's index of them grows at its end, so a second's thousands of new clicks touch a few of its pages where
    /// random ids touch a page each all over an index of millions.
    /// - Parameters:
    ///   - secondsSince1970: when the id is made; earlier than 1970 counts as 1970.
    ///   - generator: the source of the random part.
    /// - Returns: 22 base-62 characters.
    public static func timeOrdered(secondsSince1970: Int, using generator: inout some RandomNumberGenerator) -> String {
        var characters = [UInt8](repeating: alphabet[0], count: 6)
        var seconds = max(0, secondsSince1970)
        for index in (0..<6).reversed() where seconds > 0 {
            characters[index] = alphabet[seconds % 62]
            seconds /= 62
        }
        characters.reserveCapacity(timeOrderedLength)
        appendRandom(timeOrderedLength - 6, to: &characters, using: &generator)
        return String(decoding: characters, as: UTF8.self)
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
        appendRandom(length, to: &characters, using: &generator)
        return String(decoding: characters, as: UTF8.self)
    }

    private static func appendRandom(_ count: Int, to characters: inout [UInt8], using generator: inout some RandomNumberGenerator) {
        let end = characters.count + count
        while characters.count < end {
            var value = UInt64.random(in: 0..<839_299_365_868_340_224, using: &generator)  // 62^10
            for _ in 0..<min(10, end - characters.count) {
                characters.append(alphabet[Int(value % 62)])
                value /= 62
            }
        }
    }

    /// Whether `suffix` may be a `CUSTOM` code: `[A-Za-z0-9_-]{1,64}`.
    /// - Parameter suffix: a requested custom suffix.
    /// - Returns: true for 1 to 64 characters `A-Z a-z 0-9 _ -`.
    public static func isValidCustomSuffix(_ suffix: String) -> Bool {
        ShortCode(Substring(suffix)) != nil
    }
}
