/// A page of the project's links, newest first, with a search box.
struct ConsoleLinksPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.links

    struct Row: Sendable {
        var code: String
        var domain: String
        var href: String
        /// Its name (from Firebase, or given when it was created).
        var name: String?
        var destination: String
        /// `active`, `archived`, `disabled` or `expired`.
        var state: String
        var clicks: String
        var created: String
    }

    let assets = ConsoleAssets()
    let title = "Links"
    var user: ConsolePageUser?
    var notices: [String] = []
    var query: String
    var links: [Row]
    /// Stored, not computed: swift-mustache reads stored properties only.
    var empty: Bool
    var firstHref: String?
    var nextHref: String?
}
