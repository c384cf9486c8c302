/// What to answer a click with. The planner decides; the server only renders.
public enum RedirectPlan: Sendable, Equatable {
    /// 302 to `url`, a page of the kind `destination`.
    case redirect(url: String, destination: RedirectDestination, reason: String)
    // The page cases are boxed (`indirect`): a plan is then the size of a redirect, and each cached short link keeps
    // a plan per platform.
    /// The iOS app preview page, whose Open button leads to `AppPreview.openURL`.
    indirect case appPreview(AppPreview)
    /// A 200 page of Open Graph and Twitter card tags for a link-preview crawler.
    indirect case socialPreview(SocialPreview)
    /// The `d=1` page: where each platform would go, and why.
    indirect case debug(DebugReport)
    /// 400: the link is invalid or sends clicks where the allowlist forbids.
    indirect case rejected(LinkRejection)

    /// The destination, when the plan is a redirect.
    public var redirectURL: String? {
        if case .redirect(let url, _, _) = self { return url }
        return nil
    }

    /// Whether an install may follow: the app preview page, or a redirect to the App Store or Google Play. Such
    /// clicks are kept for deferred deep linking.
    public var mayLeadToInstall: Bool {
        switch self {
        case .appPreview: return true
        case .redirect(_, let destination, _): return destination != .web
        case .socialPreview, .debug, .rejected: return false
        }
    }
}
