/// Decides what a click gets, from the link, the project and the client alone: a pure function, so every
/// branch is tested without a server. Order as FDL: `d=1`, then crawlers and `HEAD`, then iOS, Android, others.
public enum RedirectPlanner {
    /// - Parameters:
    ///   - link: the resolved link, the project's defaults applied.
    ///   - project: its project.
    ///   - client: who clicked.
    ///   - isHead: a `HEAD` request, which gets the link preview where there is one.
    /// - Returns: the plan: a redirect, a page, or a rejection.
    public static func plan(_ link: ResolvedLink, project: Project, client: DetectedClient, isHead: Bool = false) -> RedirectPlan {
        let violations = project.allowlist.violations(
            in: link.parameters, projectDomains: project.domains, checked: project.defaults.desktopFallbackLink)
        if link.isDebug {
            return .debug(debugReport(link, project: project, violations: violations))
        }
        guard link.errors.isEmpty, violations.isEmpty else {
            return .rejected(LinkRejection(errors: link.errors, violations: violations))
        }
        return decide(link.parameters, project: project, client: client, isHead: isHead)
    }

    /// Adds what one click contributes to a deferred deep link: its id in the Play referrer (which the app reads
    /// back through the Install Referrer API), and the claim link the iOS preview page copies. Plans can then be
    /// made once per link and platform, and decorated per click.
    /// - Parameters:
    ///   - plan: a plan made for the link and platform.
    ///   - parameters: the link's parameters.
    ///   - clickID: this click's id.
    ///   - claimURL: the link the preview page copies, when the project allows the clipboard.
    /// - Returns: the plan with the click's id in it.
    public static func decorate(_ plan: RedirectPlan, parameters: LinkParameters, clickID: String, claimURL: String?) -> RedirectPlan {
        switch plan {
        case .redirect(let url, .playStore, let reason):
            // Only the listing made from `apn`: a Play URL of the link's own (`afl`, `ifl`) is a `.storePage`.
            let decorated = StoreURL.playStore(parameters, extraReferrer: [(StoreURL.clickReferrerKey, clickID)]) ?? url
            return .redirect(url: decorated, destination: .playStore, reason: reason)
        case .appPreview(var preview):
            preview.claimURL = claimURL
            return .appPreview(preview)
        default:
            return plan
        }
    }

    static func decide(_ parameters: LinkParameters, project: Project, client: DetectedClient, isHead: Bool) -> RedirectPlan {
        if isHead || client.platform == .crawler {
            if let preview = socialPreview(parameters) { return .socialPreview(preview) }
        }
        return browserPlan(parameters, project: project, client: client)
    }

    private static func browserPlan(_ parameters: LinkParameters, project: Project, client: DetectedClient) -> RedirectPlan {
        // Only ever reached with a valid link; the fallback keeps the function total.
        let link = parameters.link ?? ""
        switch client.platform {
        case .iPhone, .iPad:
            return iOSPlan(parameters, link: link, project: project, client: client)
        case .android:
            return androidPlan(parameters, link: link)
        case .desktop, .other, .crawler:
            if let ofl = fallback(parameters.ofl) {
                return .redirect(
                    url: ofl.url, destination: ofl.destination,
                    reason: "Platforms other than iOS and Android go to 'ofl' (or the project's desktop fallback).")
            }
            return .redirect(
                url: link, destination: RedirectDestination(fallbackURL: link),
                reason: "Platforms other than iOS and Android go to 'link' when there is no 'ofl'.")
        }
    }

    private static func iOSPlan(
        _ parameters: LinkParameters, link: String, project: Project, client: DetectedClient
    ) -> RedirectPlan {
        let iPad = client.platform == .iPad
        guard let bundleId = iPad ? (parameters.ipbi ?? parameters.ibi) : parameters.ibi else {
            return .redirect(
                url: link, destination: RedirectDestination(fallbackURL: link),
                reason: "The link names no iOS app ('ibi'), so iOS opens 'link', as in FDL.")
        }
        let destination = notInstalledDestination(parameters, iPad: iPad)
        let inAppBrowser = client.inAppBrowser
        if parameters.isForcedRedirect && inAppBrowser == nil {
            return .redirect(url: destination.url, destination: destination.kind, reason: "'efr=1' skips the preview page: \(destination.reason)")
        }
        let app = project.iOSApp(bundleId: bundleId)
        var reason =
            "iOS did not open the app through its universal link (typed or pasted into Safari, or the app is not installed), so the preview page offers it."
        if let inAppBrowser {
            reason = "\(inAppBrowser)'s in-app browser ignores universal links, so the preview page is shown even with 'efr=1'."
        }
        return .appPreview(
            AppPreview(
                appName: app?.name ?? bundleId, bundleId: bundleId, title: parameters.st, description: parameters.sd,
                imageURL: httpURL(parameters.si), openURL: destination.url, webURL: link, platform: client.platform,
                reason: reason))
    }

    /// Where an iOS click goes when the app is not installed: `ipfl` on iPads, `ifl`, the App Store, `link`.
    static func notInstalledDestination(
        _ parameters: LinkParameters, iPad: Bool
    ) -> (url: String, kind: RedirectDestination, reason: String) {
        if iPad, let ipfl = fallback(parameters.ipfl) { return (ipfl.url, ipfl.destination, "iPads go to 'ipfl'.") }
        if let ifl = fallback(parameters.ifl) { return (ifl.url, ifl.destination, "iOS goes to 'ifl' when the app is not installed.") }
        if let store = StoreURL.appStore(parameters) { return (store, .appStore, "iOS goes to the App Store page of 'isi'.") }
        let link = parameters.link ?? ""
        return (link, RedirectDestination(fallbackURL: link), "Without 'ifl' or a numeric 'isi', iOS goes to 'link'.")
    }

    private static func androidPlan(_ parameters: LinkParameters, link: String) -> RedirectPlan {
        guard parameters.apn != nil else {
            return .redirect(
                url: link, destination: RedirectDestination(fallbackURL: link),
                reason: "The link names no Android app ('apn'), so Android opens 'link', as in FDL.")
        }
        if let afl = fallback(parameters.afl) {
            return .redirect(url: afl.url, destination: afl.destination, reason: "Android goes to 'afl' instead of Google Play.")
        }
        if let play = StoreURL.playStore(parameters) {
            return .redirect(
                url: play, destination: .playStore,
                reason: "Android goes to the Google Play listing of 'apn'; the referrer carries the campaign to the app.")
        }
        return .redirect(url: link, destination: RedirectDestination(fallbackURL: link), reason: "Android opens 'link'.")
    }

    private static func socialPreview(_ parameters: LinkParameters) -> SocialPreview? {
        let image = httpURL(parameters.si)
        guard parameters.st != nil || parameters.sd != nil || image != nil, let link = parameters.link else { return nil }
        return SocialPreview(title: parameters.st, description: parameters.sd, imageURL: image, canonicalURL: link)
    }

    /// A fallback parameter's value and the kind of page it is, when it is an http(s) URL (parsed once).
    static func fallback(_ value: String?) -> (url: String, destination: RedirectDestination)? {
        guard let value, let uri = AbsoluteURI(value), uri.isHTTP else { return nil }
        return (value, RedirectDestination(fallback: uri))
    }

    /// A parameter's value when it is an http(s) URL; other values are ignored (and warned about).
    static func httpURL(_ value: String?) -> String? {
        guard let value, AbsoluteURI(value)?.isHTTP == true else { return nil }
        return value
    }

    // MARK: Debug

    static func debugReport(_ link: ResolvedLink, project: Project, violations: [AllowlistViolation]) -> DebugReport {
        var outcomes: [DebugReport.Outcome] = []
        let parameters = link.parameters
        let blocked = !link.errors.isEmpty || !violations.isEmpty
        func outcome(_ scenario: String, _ client: DetectedClient) -> DebugReport.Outcome {
            if blocked {
                return .init(
                    scenario: scenario, action: "Rejected (400)", destination: nil,
                    reason: "The link is invalid or breaks the allowlist; see the errors below.")
            }
            switch decide(parameters, project: project, client: client, isHead: false) {
            case .redirect(let url, _, let reason):
                return .init(scenario: scenario, action: "Redirect (302)", destination: url, reason: reason)
            case .appPreview(let preview):
                return .init(
                    scenario: scenario, action: "Preview page, then Open", destination: preview.openURL,
                    reason: "Shows the app preview page for \(preview.appName); its Open button goes to the destination.")
            case .socialPreview:
                return .init(
                    scenario: scenario, action: "Link preview (200)", destination: parameters.link,
                    reason:
                        "Crawlers get Open Graph and Twitter card tags from 'st', 'sd' and 'si' (or the project's defaults); not counted as a click.")
            case .debug, .rejected:
                return .init(scenario: scenario, action: "-", destination: nil, reason: "")
            }
        }
        if let ibi = parameters.ibi {
            let name = project.iOSApp(bundleId: ibi)?.name ?? ibi
            outcomes.append(
                .init(
                    scenario: "iPhone, app installed", action: blocked ? "Rejected (400)" : "Opens the app",
                    destination: blocked ? nil : parameters.link,
                    reason:
                        "iOS opens \(name) through its universal link (Associated Domains) where it honours them, such as Mail, Notes and Messages; the app resolves the link to 'link'."
                ))
        }
        outcomes.append(outcome(parameters.ibi == nil ? "iPhone" : "iPhone, app not installed", DetectedClient(platform: .iPhone)))
        outcomes.append(outcome("iPad", DetectedClient(platform: .iPad)))
        outcomes.append(outcome("Android", DetectedClient(platform: .android)))
        outcomes.append(outcome("Desktop", DetectedClient(platform: .desktop)))
        outcomes.append(outcome("Link-preview crawler", DetectedClient(platform: .crawler)))
        return DebugReport(
            linkURL: link.url, kind: link.kind, parameters: parameters, warnings: link.warnings, errors: link.errors,
            violations: violations, outcomes: outcomes)
    }
}
