/// The debug view (`d=1`) of a link, inside the console.
struct ConsoleDebugPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.debug
    let assets = ConsoleAssets()
    var title: String
    var user: ConsolePageUser?
    var notices: [String] = []
    var report: DebugPage
    var back: String
}
