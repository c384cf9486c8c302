/// The iOS app preview page: the app, the link's title and description, an Open button.
struct AppPreviewPage: PageModel {
    static let page = PageRenderer.Page.appPreview

    let assets = PageAssets()
    var appName: String
    var title: String
    var description: String?
    var imageURL: String?
    /// Where Open leads: the App Store, `ifl` or `link`, percent-encoded for an attribute.
    var openURL: String
    /// `link`, percent-encoded.
    var webURL: String
    /// The link the Open button copies for the app to claim, when the project allows the clipboard.
    var claimURL: String?
    /// The click the page's beacon reports on.
    var clickID: String?
    var beaconPath: String
}
