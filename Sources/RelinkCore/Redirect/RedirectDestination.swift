/// Where a redirect sends a click, as far as what follows is concerned: an install may follow a store page only.
public enum RedirectDestination: Sendable, Equatable {
    /// A web page: `link`, a fallback (`ifl`, `ipfl`, `afl`, `ofl`).
    case web
    /// The App Store page of `isi`.
    case appStore
    /// The Google Play listing of `apn`, whose referrer carries the campaign (and the click id) to the app.
    case playStore
    /// A store page the link names itself (`ifl`, `afl`, …), sent as it is: an install may follow it too.
    case storePage
}

extension RedirectDestination {
    /// The kind of page a fallback URL (`ifl`, `ipfl`, `afl`, `ofl`, `link`) is: links often send people to a
    /// store listing of their own (with campaign tokens), and an install may follow those as well; Relink never
    /// rewrites them.
    /// - Parameter url: an http(s) URL from the link's parameters.
    public init(fallbackURL url: String) {
        self.init(fallback: AbsoluteURI(url))
    }

    /// The same for a URL already parsed.
    init(fallback uri: AbsoluteURI?) {
        // By host, as the allowlist reads stores: any scheme and letter case, either App Store host.
        switch uri?.host?.lowercased() {
        case "apps.apple.com", "itunes.apple.com", "play.google.com": self = .storePage
        default: self = .web
        }
    }
}
