/// What a page template renders: one stored property for each of its `{{tags}}`, read by swift-mustache through
/// reflection. `PageModelTests` checks every tag of every template against its model, so a tag without a
/// property fails a test instead of rendering as nothing.
protocol PageModel: Sendable {
    /// The template this model fills.
    static var page: PageRenderer.Page { get }
}

/// The stylesheet and script every page inlines (allowed by the CSP's hashes).
struct PageAssets: Sendable {
    let style = PageTemplates.style
    let script = PageTemplates.previewScript
}
