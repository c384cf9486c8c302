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
        return base + (base.contains("?") ? "&" : "?") + "\(tokenName)=\(clickID)&\(markerName)=1"
    }

    /// `link` without `rc` and `_icp` query parameters, in any percent-encoding of their names.
    /// - Parameter link: a link as clicked.
    /// - Returns: the link unchanged when it carries neither.
    public static func withoutToken(_ link: String) -> String {
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
}
