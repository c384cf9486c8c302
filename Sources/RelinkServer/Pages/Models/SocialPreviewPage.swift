/// The page link-preview crawlers get: Open Graph and Twitter card tags.
struct SocialPreviewPage: PageModel {
    static let page = PageRenderer.Page.socialPreview

    let assets = PageAssets()
    var title: String
    var description: String?
    var imageURL: String?
    /// `link`, percent-encoded.
    var canonicalURL: String
}
