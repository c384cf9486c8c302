/// The claim link the preview page copies for the app (`…?rc=<click id>&_icp=1`, FDL's marker last), and the link
/// without it. A click id is a bearer token for its click, so no kept link and no answer may carry one: a person
/// who opens a claim link in the browser makes a click whose link would otherwise hand their token to whoever's
/// install is matched to that click.
public enum ClaimLink {
    /// The query parameter that carries the click id, and FDL's marker after it.
    public static let tokenName = "rc"
    public static let markerName = "_icp"

    /// `link` with this click's token: any token it already carried is dropped first, so the claim names this click.
    /// - Parameters:
    ///   - link: the link as clicked.
    ///   - clickID: the click's id.
    /// - Returns: `link?rc=<click id>&_icp=1` (or `&rc=…` when it has a query).
    public static func url(for link: String, clickID: String) -> String {
        let base = withoutToken(link)
        return base + (base.utf8.contains(UInt8(ascii: "?")) ? "&" : "?") + "\(tokenName)=\(clickID)&\(markerName)=1"
    }

    /// `link` without `rc` and `_icp` query parameters, in any percent-encoding of their names.
    /// - Parameter link: a link as clicked.
    /// - Returns: the link unchanged when it carries neither.
    public static func withoutToken(_ link: String) -> String {
        // Every store-bound click asks: one pass over the query's bytes answers for the usual link, which has neither.
        guard carriesToken(link) else { return link }
        guard let questionMark = link.firstIndex(of: "?") else { return link }
        let queryStart = link.index(after: questionMark)
        let queryEnd = link[queryStart...].firstIndex(of: "#") ?? link.endIndex
        let pairs = link[queryStart..<queryEnd].split(separator: "&", omittingEmptySubsequences: false)
        let kept = pairs.filter { pair in
            let name = pair.prefix { $0 != "=" }
            let decoded = PercentEncoding.decode(name) ?? String(name)
            return decoded != tokenName && decoded != markerName
        }
        guard kept.count != pairs.count else { return link }
        let prefix = kept.isEmpty ? link[..<questionMark] : link[...questionMark]
        return String(prefix) + kept.joined(separator: "&") + link[queryEnd...]
    }

    /// Whether a query parameter of `link` is named `rc` or `_icp` (in any percent-encoding of the name), read byte
    /// by byte.
    static func carriesToken(_ link: String) -> Bool {
        let utf8 = link.utf8
        guard let questionMark = utf8.firstIndex(of: UInt8(ascii: "?")) else { return false }
        var index = utf8.index(after: questionMark)
        var nameStart = index
        var inName = true
        func isTokenName(_ start: String.UTF8View.Index, _ end: String.UTF8View.Index) -> Bool {
            let name = utf8[start..<end]
            if name.contains(UInt8(ascii: "%")) {
                let decoded = PercentEncoding.decode(Substring(link[start..<end])) ?? ""
                return decoded == tokenName || decoded == markerName
            }
            return name.elementsEqual(tokenName.utf8) || name.elementsEqual(markerName.utf8)
        }
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "#") { break }
            if byte == UInt8(ascii: "&") {
                if inName, isTokenName(nameStart, index) { return true }
                nameStart = utf8.index(after: index)
                inName = true
            } else if byte == UInt8(ascii: "="), inName {
                if isTokenName(nameStart, index) { return true }
                inName = false
            }
            index = utf8.index(after: index)
        }
        return inName && isTokenName(nameStart, index)
    }
}
