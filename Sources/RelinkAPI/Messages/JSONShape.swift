import Foundation

/// Checks JSON's bytes before a decoder reads them: the Swift client's answers, as the Android and JavaScript clients
/// do, so the three refuse the same answers (clients/conformance/README.md), and the API's request bodies. Nesting
/// past `maxDepth` (Android's parser recurses per bracket, and a stack overflow there kills the app), and an object
/// with one key twice: Foundation's decoder keeps the first, JavaScript's and Android's parsers (and most proxies
/// and firewalls in front of a server) the last, so the same bytes would mean two things. And a comma with no value
/// on one side (`[1,]`, `{"a":1,}`, `[1,,2]`), which JSON does not have: Foundation skips it, Android's parser reads
/// a null there and JavaScript's refuses the text.
public enum JSONShape {
    /// Relink's answers nest two or three levels, its request bodies a few more.
    public static let maxDepth = 64

    /// Whether `data` is UTF-8 text without a NUL, as JSON exchanged between systems must be (RFC 8259 8.1). The
    /// decoders also read UTF-16 and UTF-32, which `problem` (reading bytes as UTF-8) would pass over: a NUL is never
    /// in JSON text, and is how those encodings look byte by byte.
    public static func isUTF8Text(_ data: Data) -> Bool {
        !data.contains(0) && String(validating: data, as: UTF8.self) != nil
    }

    /// Why `data` is not JSON to decode, or nil. Bytes that are not JSON pass; the decoder refuses them.
    /// - Parameters:
    ///   - data: the JSON text.
    ///   - subject: what the text is, as the reason names it (`the answer`, `the request body`).
    /// - Returns: the reason, starting with `subject`, or nil.
    public static func problem(_ data: Data, subject: String = "the answer") -> String? {
        let bytes = [UInt8](data)
        // One entry per open bracket: the keys of an object (as UTF-8), nil for an array.
        var open: [Set<[UInt8]>?] = []
        // The last byte outside a string that is not white space (a string counts as its quote).
        var previous: UInt8?
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D {
                index += 1
                continue
            }
            defer { previous = byte }
            if byte == UInt8(ascii: "\"") {
                let end = stringEnd(bytes, from: index)
                if let keys = open.last, let keys, nextNonSpace(bytes, from: end) == UInt8(ascii: ":") {
                    let key = decodedKey(bytes[(index + 1)..<max(index + 1, end - 1)])
                    if keys.contains(key) {
                        return "\(subject) has the key \"\(printable(key))\" twice in one object"
                    }
                    open[open.count - 1]?.insert(key)
                }
                index = end
                continue
            }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < maxDepth else { return "\(subject) nests deeper than \(maxDepth) levels" }
                open.append(byte == UInt8(ascii: "{") ? Set() : nil)
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if previous == UInt8(ascii: ",") { return "\(subject) has a comma before a closing bracket" }
                if !open.isEmpty { open.removeLast() }
            case UInt8(ascii: ","):
                if previous == nil || previous == UInt8(ascii: ",") || previous == UInt8(ascii: "[")
                    || previous == UInt8(ascii: "{")
                {
                    return "\(subject) has a comma with no value before it"
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The index just past the string opening at `start`, or the end when it never closes.
    static func stringEnd(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start + 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""): return index + 1
            default: index += 1
            }
        }
        return bytes.count
    }

    private static func nextNonSpace(_ bytes: [UInt8], from start: Int) -> UInt8? {
        var index = start
        while index < bytes.count {
            let byte = bytes[index]
            if byte != 0x20, byte != 0x09, byte != 0x0A, byte != 0x0D { return byte }
            index += 1
        }
        return nil
    }

    /// A key's UTF-8 with its escapes read, so `"a"` and `"\u0061"` are one key, as to a decoder.
    private static func decodedKey(_ raw: ArraySlice<UInt8>) -> [UInt8] {
        guard raw.contains(UInt8(ascii: "\\")) else { return Array(raw) }
        var units: [UInt16] = []
        var key: [UInt8] = []
        // UTF-16 units of \u escapes are gathered, so a surrogate pair becomes its one scalar.
        func flushUnits() {
            key += Array(String(decoding: units, as: UTF16.self).utf8)
            units.removeAll()
        }
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            guard byte == UInt8(ascii: "\\"), index + 1 < raw.endIndex else {
                flushUnits()
                key.append(byte)
                index += 1
                continue
            }
            let escape = raw[index + 1]
            index += 2
            if escape == UInt8(ascii: "u"), index + 4 <= raw.endIndex,
                let unit = UInt16(String(decoding: raw[index..<(index + 4)], as: UTF8.self), radix: 16)
            {
                units.append(unit)
                index += 4
                continue
            }
            flushUnits()
            switch escape {
            case UInt8(ascii: "b"): key.append(0x08)
            case UInt8(ascii: "f"): key.append(0x0C)
            case UInt8(ascii: "n"): key.append(0x0A)
            case UInt8(ascii: "r"): key.append(0x0D)
            case UInt8(ascii: "t"): key.append(0x09)
            default: key.append(escape)
            }
        }
        flushUnits()
        return key
    }

    /// A key for a message: at most 64 scalars, control characters as `?`.
    private static func printable(_ key: [UInt8]) -> String {
        let scalars = String(decoding: key, as: UTF8.self).unicodeScalars.prefix(64)
        return String(String.UnicodeScalarView(scalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : $0 }))
    }
}
