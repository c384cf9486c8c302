/// Percent-encoding of query values, byte by byte over UTF-8.
public enum PercentEncoding {
    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// Encodes every byte that is not an ASCII letter or digit, as FDL's iOS builder did, so that
    /// a value's own `?`, `&`, `=`, `#`, `%`, `+` and spaces survive inside a query.
    /// - Parameter value: any text.
    /// - Returns: the text with everything but unreserved characters percent-encoded.
    public static func encodeQueryValue(_ value: String) -> String {
        encode(value) { isASCIIAlphanumeric($0) }
    }

    /// Encodes the bytes that may not appear literally in a URL (controls, spaces, non-ASCII, and
    /// `"<>\^`{|}`), leaving a URL that is already valid unchanged. Used to make `Location` headers safe.
    /// - Parameter value: a URL that may hold spaces or non-ASCII characters.
    /// - Returns: the URL with those encoded and existing escapes kept, safe for a `Location` header or an attribute.
    public static func encodeForURL(_ value: String) -> String {
        encode(value) { byte in
            guard byte > 0x20, byte < 0x7F else { return false }
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"),
                UInt8(ascii: "^"), UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
                return false
            default:
                return true
            }
        }
    }

    /// Encodes everything but RFC 3986's unreserved characters (`A-Z a-z 0-9 - . _ ~`): safe in a path segment
    /// or a query value, and readable for identifiers such as package names.
    /// - Parameter value: any text.
    /// - Returns: the text encoded as a path segment or query value.
    public static func encodeComponent(_ value: String) -> String {
        encode(value, keeping: isUnreserved)
    }

    /// Appends `value` encoded as `encodeComponent` does, `times` times over (twice: a component inside a
    /// component, as a query inside one query value), without the texts in between.
    /// - Parameters:
    ///   - value: the bytes to encode.
    ///   - output: where they go.
    ///   - times: 1 or 2.
    package static func appendComponent(_ value: some Sequence<UInt8>, to output: inout [UInt8], times: Int = 1) {
        for byte in value {
            if isUnreserved(byte) {
                output.append(byte)
            } else {
                output.append(UInt8(ascii: "%"))
                if times == 2 {
                    // The `%` encoded again.
                    output.append(UInt8(ascii: "2"))
                    output.append(UInt8(ascii: "5"))
                }
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            }
        }
    }

    /// RFC 3986's unreserved characters, which `encodeComponent` keeps.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "~")
    }

    @inline(__always)
    private static func encode(_ value: String, keeping keep: (UInt8) -> Bool) -> String {
        let utf8 = value.utf8
        var escapes = 0
        for byte in utf8 where !keep(byte) { escapes += 1 }
        if escapes == 0 { return value }
        return String(unsafeUninitializedCapacity: utf8.count + 2 * escapes) { buffer in
            var offset = 0
            for byte in utf8 {
                if keep(byte) {
                    buffer[offset] = byte
                    offset += 1
                } else {
                    buffer[offset] = UInt8(ascii: "%")
                    buffer[offset + 1] = hexDigits[Int(byte >> 4)]
                    buffer[offset + 2] = hexDigits[Int(byte & 0x0F)]
                    offset += 3
                }
            }
            return offset
        }
    }

    /// Decodes `%XX` escapes (and `+` as a space when `plusAsSpace`, as HTML forms and FDL's server do).
    /// Returns nil for a malformed escape or bytes that are not UTF-8.
    /// - Parameters:
    ///   - value: percent-encoded text.
    ///   - plusAsSpace: whether `+` means a space (queries) or itself (paths).
    /// - Returns: the decoded text, or nil when an escape is malformed or the bytes are not UTF-8.
    public static func decode(_ value: Substring, plusAsSpace: Bool = true) -> String? {
        let utf8 = value.utf8
        var needsWork = false
        for byte in utf8 where byte == UInt8(ascii: "%") || (plusAsSpace && byte == UInt8(ascii: "+")) {
            needsWork = true
            break
        }
        if !needsWork { return String(value) }
        var bytes = [UInt8](repeating: 0, count: utf8.count)
        var count = 0
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first != utf8.endIndex else { return nil }
                let second = utf8.index(after: first)
                guard second != utf8.endIndex, let high = hexValue(utf8[first]), let low = hexValue(utf8[second])
                else { return nil }
                bytes[count] = high << 4 | low
                index = utf8.index(after: second)
            } else {
                bytes[count] = plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte
                index = utf8.index(after: index)
            }
            count += 1
        }
        return String(validating: bytes[..<count], as: UTF8.self)
    }

    package static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
