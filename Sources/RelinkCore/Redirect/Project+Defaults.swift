extension Project {
    /// `parameters` with what the link leaves out taken from the project: social tags, the desktop fallback,
    /// the forced-redirect default and, for routes (`fillingApps`), the first iOS and Android apps. Long and short
    /// links follow FDL instead: without `ibi` or `apn`, that platform opens `link`.
    /// - Parameters:
    ///   - parameters: a link's own parameters.
    ///   - fillingApps: also fill in the project's apps (`ibi`, `isi`, `apn`), as routes do.
    ///   - preview: what the link's destination page says of itself, which comes before the project's social tags.
    /// - Returns: the parameters with the project's defaults where the link leaves them out.
    public func applyingDefaults(to parameters: LinkParameters, fillingApps: Bool, preview: PagePreview? = nil) -> LinkParameters {
        var result = parameters
        if fillingApps {
            if result.ibi == nil, result.ipbi == nil, let app = ios.first {
                result.ibi = app.bundleId
                if result.isi == nil { result.isi = app.appStoreId }
                if result.ius == nil { result.ius = app.customScheme }
                if result.ipbi == nil { result.ipbi = app.iPadBundleId }
            }
            if result.apn == nil, let app = android.first { result.apn = app.packageName }
        }
        if let preview, result.st == nil, result.sd == nil, result.si == nil {
            // The page's card as a whole: a link that sets any social tag of its own keeps its card.
            result.st = preview.title
            result.sd = preview.description
            result.si = preview.imageURL
        }
        if result.st == nil { result.st = defaults.socialTitle }
        if result.sd == nil { result.sd = defaults.socialDescription }
        if result.si == nil { result.si = defaults.socialImageLink }
        if result.ofl == nil { result.ofl = defaults.desktopFallbackLink }
        if result.efr == nil, defaults.forcedRedirect { result.efr = "1" }
        return result
    }

    /// The configured iOS app with this bundle ID (or iPad bundle ID).
    /// - Parameter bundleId: a bundle ID.
    /// - Returns: the app, or nil.
    public func iOSApp(bundleId: String) -> IOSApp? {
        ios.first { $0.bundleId == bundleId || $0.iPadBundleId == bundleId }
    }

    /// Whether the project has an app with this bundle ID (iOS, iPhone or iPad) or package name (Android).
    /// - Parameters:
    ///   - bundle: the bundle ID or package name an app sent.
    ///   - platform: where the app runs.
    /// - Returns: true when routes.json lists it for that platform.
    public func hasApp(_ bundle: String, on platform: AppPlatform) -> Bool {
        switch platform {
        case .iOS: iOSApp(bundleId: bundle) != nil
        case .android: android.contains { $0.packageName == bundle }
        }
    }
}
