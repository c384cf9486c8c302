/// Makes short-link codes. The random source is a parameter, so tests can fix it; production passes
/// `SystemRandomNumberGenerator`, which reads the OS's cryptographic generator.
public enum ShortCodeGenerator {
    static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8)

    /// The length of an `UNGUESSABLE` code: 17 base-62 characters hold 96 random bits (62^17 > 2^101).
    public static let unguessableLength = 17
    /// The shortest `SHORT` code.
    public static let minimumShortLength = 4

    /// 96 random bits in base 62, left-padded to 17 characters.
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

    /// `length` random base-62 characters.
    public static func random(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
    }

    /// Whether `suffix` may be a `CUSTOM` code: `[A-Za-z0-9_-]{1,64}`.
    public static func isValidCustomSuffix(_ suffix: String) -> Bool {
        ShortCode(Substring(suffix)) != nil
    }
}
