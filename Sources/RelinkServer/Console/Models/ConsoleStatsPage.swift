/// A link's or the project's statistics over a date range: each chart an SVG with its table beside it.
struct ConsoleStatsPage: ConsolePageModel {
    static let page = ConsoleRenderer.Page.stats

    struct Total: Sendable {
        var label: String
        var value: String
    }

    let assets = ConsoleAssets()
    var title: String
    var heading: String
    var user: ConsolePageUser?
    var notices: [String] = []
    var action: String
    var from: String
    var to: String
    var csvHref: String
    var confidenceCSVHref: String
    var totals: [Total]
    var charts: [StatsChart]
}
