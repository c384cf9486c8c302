import Foundation

/// Checks an answer's numbers before the decoder reads it: one past a double's range (`1e999999`, or 400 digits) is
/// refused by Android's parser wherever it stands, while Foundation and JavaScript read it (as infinity, or not at
/// all when no field takes it), so all three clients call such an answer malformed (clients/conformance/README.md).
public enum JSONNumberRange {
    /// Why `data` holds a number no client can read alike, or nil. Bytes that are not JSON pass; the decoder refuses
    /// them.
    public static func problem(_ data: Data) -> String? {
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index = JSONShape.stringEnd(bytes, from: index)
                continue
            }
            guard byte == UInt8(ascii: "-") || isDigit(byte) else {
                index += 1
                continue
            }
            let start = index
            while index < bytes.count, isNumberByte(bytes[index]) { index += 1 }
            let number = String(decoding: bytes[start..<index], as: UTF8.self)
            if let value = Double(number), !value.isFinite {
                return "the answer holds the number \(number.leadingScalars(32))\(number.count > 32 ? "…" : ""), past a double's range"
            }
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
    }
}
