/// The languages a client prefers, reduced to primary language subtags (`en`, `fr`, `zh`), for comparing a
/// browser's `Accept-Language` with an app's language codes.
public enum LanguageList {
    /// `en-US,en;q=0.9,fr;q=0.8` → `["en", "fr"]`, in order of preference, at most 8.
    /// - Parameter header: an `Accept-Language` value.
    /// - Returns: the primary languages (`en`, `fr`) by preference, without repeats or `*`.
    public static func fromAcceptLanguage(_ header: String) -> [String] {
        var result: [String] = []
        for item in header.split(separator: ",") {
            let tag = item.split(separator: ";").first.map(String.init) ?? ""
            if let language = primary(tag), !result.contains(language) { result.append(language) }
            if result.count == 8 { break }
        }
        return result
    }

    /// `en_US`, `en-US`, `EN` → `en`; nil for `*` or anything that is not a language subtag.
    /// - Parameter tag: a language tag, `zh_Hant_TW` or `en-US`.
    /// - Returns: its primary language, lowercased, or nil when it has none.
    public static func primary(_ tag: String) -> String? {
        let trimmed = tag.trimmingASCIIWhitespace()
        let language = trimmed.split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map { $0.lowercased() } ?? ""
        guard (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLetter }) else { return nil }
        return language
    }
}
