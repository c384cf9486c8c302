/// The code of a short link: the path segment after the domain URI prefix (`Ab3x` in `https://go.example.com/Ab3x`).
public struct ShortCode: Hashable, Sendable, CustomStringConvertible {
    public let value: String

    /// The longest code Relink accepts (a `CUSTOM` suffix may be up to 64 characters).
    public static let maximumLength = 64

    /// A code: 1–64 characters `A-Z a-z 0-9 _ -`. Anything else cannot be a short link.
    /// - Parameter value: a path segment.
    /// - Returns: nil unless it is 1 to 64 characters `A-Z a-z 0-9 _ -`.
    public init?(_ value: Substring) {
        guard !value.isEmpty, value.utf8.count <= Self.maximumLength,
            value.utf8.allSatisfy({ PercentEncoding.isASCIIAlphanumeric($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-") })
        else { return nil }
        self.value = String(value)
    }

    public var description: String { value }
}
