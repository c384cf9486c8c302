/// Lowercase hexadecimal text of bytes, without `String(format:)` (which is slow enough to show in profiles).
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    /// - Parameter bytes: any bytes.
    /// - Returns: two lowercase hex digits per byte.
    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        string(Array(bytes)[...])
    }

    /// The first `count` bytes of a raw buffer (a digest's bytes).
    /// - Parameters:
    ///   - bytes: the buffer.
    ///   - count: how many of its bytes.
    /// - Returns: two lowercase hex digits per byte.
    public static func string(_ bytes: UnsafeRawBufferPointer, count: Int) -> String {
        string(Array(bytes.prefix(count))[...])
    }

    static func string(_ bytes: ArraySlice<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            var offset = 0
            for byte in bytes {
                buffer[offset] = digits[Int(byte >> 4)]
                buffer[offset + 1] = digits[Int(byte & 0x0F)]
                offset += 2
            }
            return offset
        }
    }
}
