/// A plain page with a title and paragraphs: errors, not-found and gone pages.
struct MessagePage: PageModel {
    static let page = PageRenderer.Page.message

    let assets = PageAssets()
    var title: String
    var paragraphs: [String]
}
