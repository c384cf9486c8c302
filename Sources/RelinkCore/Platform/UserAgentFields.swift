/// Versions and device models read out of mobile User-Agents, for matching a click to an install later.
/// Byte-level and allocation-light: it runs on every mobile click.
enum UserAgentFields {
    /// `17.2` from `CPU iPhone OS 17_2 like Mac OS X` (or `iOS 17.2` in app User-Agents).
    static func iOSVersion(_ userAgent: String) -> String? {
        let bytes = Array(userAgent.utf8)
        for marker in ["iphone os ", "cpu os ", "ios "] {
            if let end = find(marker, in: bytes), let version = dottedNumber(bytes, from: end) {
                return version
            }
        }
        return nil
    }

    /// `14` from `Android 14;`, `4.0.4` from `Android 4.0.4;`.
    static func androidVersion(_ userAgent: String) -> String? {
        let bytes = Array(userAgent.utf8)
        guard let end = find("android ", in: bytes) else { return nil }
        return dottedNumber(bytes, from: end)
    }

    /// The model an Android User-Agent names: `Pixel 7` in `(Linux; Android 14; Pixel 7)`, `L-01E` in
    /// `(Linux; U; Android 4.0.4; en-us; L-01E Build/IMM76D)`. Nil for Chrome's reduced `K`.
    static func androidModel(_ userAgent: String) -> String? {
        let bytes = Array(userAgent.utf8)
        guard let end = find("android", in: bytes) else { return nil }
        let groupEnd = bytes[end...].firstIndex(of: UInt8(ascii: ")")) ?? bytes.endIndex
        for field in bytes[end..<groupEnd].split(separator: UInt8(ascii: ";")).dropFirst() {
            var model = trimmed(field)
            if isLocale(model) || ["u", "wv", "mobile", "tablet"].contains(lowercased(model)) { continue }
            if let buildEnd = find(" build", in: Array(model)) {
                model = trimmed(model.prefix(buildEnd - " build".utf8.count))
            }
            let text = String(decoding: model, as: UTF8.self)
            return text.isEmpty || text == "K" ? nil : text
        }
        return nil
    }

    /// The offset just past the first case-insensitive occurrence of the lowercase ASCII `needle`.
    private static func find(_ needle: String, in bytes: [UInt8]) -> Int? {
        let needle = Array(needle.utf8)
        guard bytes.count >= needle.count else { return nil }
        outer: for start in 0...(bytes.count - needle.count) {
            for (offset, byte) in needle.enumerated() where lower(bytes[start + offset]) != byte {
                continue outer
            }
            return start + needle.count
        }
        return nil
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func lowercased(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes.map(lower), as: UTF8.self)
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var slice = bytes
        while slice.first == UInt8(ascii: " ") { slice = slice.dropFirst() }
        while slice.last == UInt8(ascii: " ") { slice = slice.dropLast() }
        return slice
    }

    /// `en`, `en-us`, `zh_CN`, `pt-BR`: a locale, which older Android User-Agents put before the model.
    private static func isLocale(_ field: ArraySlice<UInt8>) -> Bool {
        let parts = field.split(whereSeparator: { $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
        guard let language = parts.first, language.count == 2, language.allSatisfy(AbsoluteURI.isLetter), parts.count <= 2
        else { return false }
        return parts.count == 1 || (2...4).contains(parts[1].count)
    }

    /// Digits separated by `.` or `_` from `start`, as `17.2` (at most three parts).
    private static func dottedNumber(_ bytes: [UInt8], from start: Int) -> String? {
        var end = start
        while end < bytes.count, AbsoluteURI.isDigit(bytes[end]) || bytes[end] == UInt8(ascii: ".") || bytes[end] == UInt8(ascii: "_") {
            end += 1
        }
        let parts = bytes[start..<end].split(whereSeparator: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_") })
        guard let first = parts.first, first.first.map(AbsoluteURI.isDigit) == true, start < end, AbsoluteURI.isDigit(bytes[start])
        else { return nil }
        return parts.prefix(3).map { String(decoding: $0, as: UTF8.self) }.joined(separator: ".")
    }
}
