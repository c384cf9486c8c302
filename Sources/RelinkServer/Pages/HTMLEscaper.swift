import Mustache

/// The one HTML escaper of every page: it works on UTF-8 bytes, never on `Character`s.
///
/// A `Character` is a grapheme cluster: a prepended concatenation mark (U+0600…) merges with a `<` after it, and
/// a combining mark (U+0301…) with a `"` or `>` before it, so an escaper that compares `Character`s lets those
/// through raw. Every byte of `&`, `<`, `>`, `"` and `'` is a whole scalar in UTF-8 (no multi-byte sequence
/// contains a byte below 0x80), so replacing bytes escapes every one of them whatever surrounds it.
public enum HTMLEscaper {
    /// `text` with `&`, `<`, `>`, `"` and `'` replaced by character references; safe in element content and in
    /// quoted attribute values.
    public static func escape(_ text: String) -> String {
        var text = text
        // Fast path: most values (URLs, titles) need nothing; contiguous UTF-8 is scanned without copying.
        let clean = text.withUTF8 { bytes in !bytes.contains(where: needsEscaping) }
        if clean { return text }
        var escaped: [UInt8] = []
        text.withUTF8 { bytes in
            escaped.reserveCapacity(bytes.count + 32)
            for byte in bytes {
                switch byte {
                case UInt8(ascii: "&"): escaped.append(contentsOf: "&amp;".utf8)
                case UInt8(ascii: "<"): escaped.append(contentsOf: "&lt;".utf8)
                case UInt8(ascii: ">"): escaped.append(contentsOf: "&gt;".utf8)
                case UInt8(ascii: "\""): escaped.append(contentsOf: "&quot;".utf8)
                case UInt8(ascii: "'"): escaped.append(contentsOf: "&#39;".utf8)
                default: escaped.append(byte)
                }
            }
        }
        return String(decoding: escaped, as: UTF8.self)
    }

    @inline(__always)
    static func needsEscaping(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "&") || byte == UInt8(ascii: "<") || byte == UInt8(ascii: ">") || byte == UInt8(ascii: "\"")
            || byte == UInt8(ascii: "'")
    }

    /// The Mustache content type the page templates name (`{{% CONTENT_TYPE: RELINK_HTML}}`), so that every
    /// `{{value}}` goes through `escape` instead of swift-mustache's `Character`-based escaping.
    struct ContentType: MustacheContentType {
        static let name = "RELINK_HTML"
        static let pragma = "{{% CONTENT_TYPE: \(name)}}"

        func escapeText(_ text: String) -> String { HTMLEscaper.escape(text) }

        /// Registers the content type once, before any template is parsed (the parser looks it up by name).
        static let registered: Void = MustacheContentTypes.register(ContentType(), named: name)
    }
}
