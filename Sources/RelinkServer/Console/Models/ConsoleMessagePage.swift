/// A plain page: errors, refusals, a missing link.
struct ConsoleMessagePage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.message
    let assets = ConsoleAssets()
    var title: String
    var heading: String
    var user: ConsolePageUser?
    var notices: [String] = []
    var paragraphs: [String]
    var back: String
    var backLabel: String
}
