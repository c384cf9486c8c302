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

    /// The first tag of an `Accept-Language` value by preference (`q`), lowercased, `_` read as `-`.
    public static func preferredLanguage(_ header: String?) -> String? {
        guard let header else { return nil }
        var best: (tag: String, q: Double)?
        for item in header.split(separator: ",").prefix(16) {
            let parts = item.split(separator: ";")
            let tag = (parts.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "").lowercased().replacingOccurrences(of: "_", with: "-")
            guard !tag.isEmpty, tag != "*", tag.count <= 35, tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                continue
            }
            var q = 1.0
            for parameter in parts.dropFirst() {
                let pair = parameter.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces) == "q" {
                    q = Double(pair[1].trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if q > 0, q > (best?.q ?? -1) { best = (tag, q) }
        }
        return best?.tag
    }
}
