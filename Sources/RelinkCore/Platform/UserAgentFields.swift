/// Versions and device models read out of mobile User-Agents, for matching a click to an install later.
/// Byte-level, over the string's own UTF-8 (no copy of it, and no allocation but the answer): it runs on every
/// mobile click.
enum UserAgentFields {
    typealias Bytes = UnsafeBufferPointer<UInt8>

    /// `17.2` from `CPU iPhone OS 17_2 like Mac OS X` (or `iOS 17.2` in app User-Agents).
    static func iOSVersion(_ userAgent: String) -> String? {
        withBytes(of: userAgent) { bytes -> String? in
            for marker: StaticString in ["iphone os ", "cpu os ", "ios "] {
                if let end = find(marker, in: bytes, within: 0..<bytes.count), let version = dottedNumber(bytes, from: end) {
                    return version
                }
            }
            return nil
        }
    }

    /// `14` from `Android 14;`, `4.0.4` from `Android 4.0.4;`.
    static func androidVersion(_ userAgent: String) -> String? {
        withBytes(of: userAgent) { bytes -> String? in
            find("android ", in: bytes, within: 0..<bytes.count).flatMap { dottedNumber(bytes, from: $0) }
        }
    }

    /// The model an Android User-Agent names: `Pixel 7` in `(Linux; Android 14; Pixel 7)`, `L-01E` in
    /// `(Linux; U; Android 4.0.4; en-us; L-01E Build/IMM76D)`. Nil for Chrome's reduced `K`.
    /// The fields are the group's non-empty `;`-separated parts after the one holding the version; the first that is
    /// not a locale or a marker (`U`, `wv`, `Mobile`, `Tablet`) is the model, up to any ` Build`.
    static func androidModel(_ userAgent: String) -> String? {
        withBytes(of: userAgent) { bytes -> String? in
            guard let end = find("android", in: bytes, within: 0..<bytes.count) else { return nil }
            var groupEnd = end
            while groupEnd < bytes.count, bytes[groupEnd] != UInt8(ascii: ")") { groupEnd += 1 }
            var fieldStart = end
            var isFirstField = true
            while fieldStart < groupEnd {
                var fieldEnd = fieldStart
                while fieldEnd < groupEnd, bytes[fieldEnd] != UInt8(ascii: ";") { fieldEnd += 1 }
                defer { fieldStart = fieldEnd + 1 }
                guard fieldEnd > fieldStart else { continue }
                guard !isFirstField else {
                    isFirstField = false
                    continue
                }
                var model = trimmed(fieldStart..<fieldEnd, in: bytes)
                if isLocale(model, in: bytes) || markers.contains(where: { equalsIgnoringCase(model, in: bytes, $0) }) {
                    continue
                }
                let build: StaticString = " build"
                if let buildEnd = find(build, in: bytes, within: model) {
                    model = trimmed(model.lowerBound..<(buildEnd - build.utf8CodeUnitCount), in: bytes)
                }
                let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[model]), as: UTF8.self)
                return text.isEmpty || text == "K" ? nil : text
            }
            return nil
        }
    }

    /// Fields an Android User-Agent puts where the model may be, which are not one.
    private static let markers: [StaticString] = ["u", "wv", "mobile", "tablet"]

    private static func withBytes<Result>(of text: String, _ body: (Bytes) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    /// The offset just past the first case-insensitive occurrence of the lowercase ASCII `needle` in `range`.
    private static func find(_ needle: StaticString, in bytes: Bytes, within range: Range<Int>) -> Int? {
        needle.withUTF8Buffer { needle in
            guard range.count >= needle.count else { return nil }
            outer: for start in range.lowerBound...(range.upperBound - needle.count) {
                for offset in 0..<needle.count where lower(bytes[start + offset]) != needle[offset] {
                    continue outer
                }
                return start + needle.count
            }
            return nil
        }
    }

    private static func equalsIgnoringCase(_ range: Range<Int>, in bytes: Bytes, _ lowercase: StaticString) -> Bool {
        lowercase.withUTF8Buffer { word in
            word.count == range.count && word.indices.allSatisfy { lower(bytes[range.lowerBound + $0]) == word[$0] }
        }
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func trimmed(_ range: Range<Int>, in bytes: Bytes) -> Range<Int> {
        var (start, end) = (range.lowerBound, range.upperBound)
        while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        return start..<end
    }

    /// `en`, `en-us`, `zh_CN`, `pt-BR`: a locale, which older Android User-Agents put before the model. Its
    /// non-empty `-`/`_`-separated parts: a two-letter language, then at most one part of 2 to 4 bytes.
    private static func isLocale(_ range: Range<Int>, in bytes: Bytes) -> Bool {
        var (language, region, count) = (0..<0, 0..<0, 0)
        var start = range.lowerBound
        while start < range.upperBound {
            var end = start
            while end < range.upperBound, bytes[end] != UInt8(ascii: "-"), bytes[end] != UInt8(ascii: "_") { end += 1 }
            if end > start {
                count += 1
                if count == 1 { language = start..<end } else if count == 2 { region = start..<end } else { return false }
            }
            start = end + 1
        }
        guard count > 0, language.count == 2, language.allSatisfy({ AbsoluteURI.isLetter(bytes[$0]) }) else { return false }
        return count == 1 || (2...4).contains(region.count)
    }

    /// Digits separated by `.` or `_` from `start`, as `17.2` (at most three parts; runs of separators count as one).
    private static func dottedNumber(_ bytes: Bytes, from start: Int) -> String? {
        guard start < bytes.count, AbsoluteURI.isDigit(bytes[start]) else { return nil }
        var end = start
        while end < bytes.count, AbsoluteURI.isDigit(bytes[end]) || bytes[end] == UInt8(ascii: ".") || bytes[end] == UInt8(ascii: "_") {
            end += 1
        }
        return String(unsafeUninitializedCapacity: end - start) { output in
            var (count, parts, inPart) = (0, 0, false)
            for index in start..<end {
                guard AbsoluteURI.isDigit(bytes[index]) else {
                    inPart = false
                    continue
                }
                if !inPart {
                    if parts == 3 { break }
                    if parts > 0 {
                        output[count] = UInt8(ascii: ".")
                        count += 1
                    }
                    parts += 1
                    inPart = true
                }
                output[count] = bytes[index]
                count += 1
            }
            return count
        }
    }
}
