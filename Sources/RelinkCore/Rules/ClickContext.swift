import Foundation

/// What the rules of a link may look at for one click.
public struct ClickContext: Sendable {
    /// ISO 3166-1 alpha-2, uppercase; nil when unknown.
    public var country: String?
    /// The most preferred `Accept-Language` tag, lowercased (`pt-br`); nil when none.
    public var language: String?
    public var client: DetectedClient
    public var now: Date
    /// Stable for one visitor without a cookie (their network and browser), so a visitor keeps their variant.
    public var visitorKey: String

    public init(country: String? = nil, language: String? = nil, client: DetectedClient, now: Date = Date(), visitorKey: String = "") {
        self.country = country
        self.language = language
        self.client = client
        self.now = now
        self.visitorKey = visitorKey
    }

    /// The first tag of an `Accept-Language` value by preference (`q`), lowercased, `_` read as `-`. Read byte by
    /// byte: it runs on every click of a link with language rules.
    public static func preferredLanguage(_ header: String?) -> String? {
        guard let header else { return nil }
        var best: (start: Int, end: Int, q: Int)?
        var utf8 = Array(header.utf8.prefix(512))
        var index = 0
        var items = 0
        while index < utf8.count, items < 16 {
            items += 1
            // One item: spaces, a tag, then `;q=0.9` or other parameters, up to a comma.
            while index < utf8.count, utf8[index] == UInt8(ascii: " ") || utf8[index] == UInt8(ascii: "\t") { index += 1 }
            let tagStart = index
            var valid = true
            while index < utf8.count, utf8[index] != UInt8(ascii: ";"), utf8[index] != UInt8(ascii: ","),
                utf8[index] != UInt8(ascii: " ")
            {
                let byte = utf8[index]
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"): utf8[index] = byte + 32
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"): break
                case UInt8(ascii: "_"): utf8[index] = UInt8(ascii: "-")
                default: valid = false
                }
                index += 1
            }
            let tagEnd = index
            // q in thousandths; 1 when absent.
            var q = 1000
            while index < utf8.count, utf8[index] != UInt8(ascii: ",") {
                if utf8[index] == UInt8(ascii: "q"), index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "=") {
                    index += 2
                    q = 0
                    var digits = 0
                    var seenPoint = false
                    while index < utf8.count, utf8[index] != UInt8(ascii: ","), utf8[index] != UInt8(ascii: ";") {
                        let byte = utf8[index]
                        if byte == UInt8(ascii: ".") {
                            seenPoint = true
                        } else if byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                            if !seenPoint {
                                q = Int(byte - UInt8(ascii: "0")) * 1000
                            } else if digits < 3 {
                                q += Int(byte - UInt8(ascii: "0")) * [100, 10, 1][digits]
                                digits += 1
                            }
                        }
                        index += 1
                    }
                    continue
                }
                index += 1
            }
            index += 1  // the comma
            let length = tagEnd - tagStart
            guard valid, length > 0, length <= 35, !(length == 1 && utf8[tagStart] == UInt8(ascii: "*")), q > 0 else { continue }
            if q > (best?.q ?? -1) { best = (tagStart, tagEnd, q) }
        }
        guard let best else { return nil }
        return String(decoding: utf8[best.start..<best.end], as: UTF8.self)
    }
}
