/// The store listings Relink redirects to. They are built here, so they need no allowlist entry.
public enum StoreURL {
    /// The referrer key that carries a click's id to the app.
    public static let clickReferrerKey = "relink_click"

    /// `https://apps.apple.com/app/id<isi>`, with the App Store analytics parameters (`at`, `ct`, `mt`, `pt`).
    /// - Parameter parameters: the link's parameters.
    /// - Returns: the App Store page of `isi` with `at`, `ct`, `mt` and `pt`, or nil without a numeric `isi`.
    public static func appStore(_ parameters: LinkParameters) -> String? {
        guard let isi = parameters.isi, !isi.isEmpty, isi.allSatisfy(\.isASCIIDigitCharacter) else { return nil }
        let query = LinkParameter.appStoreAnalytics.compactMap { parameter in
            parameters[parameter].map { "\(parameter.name)=\(PercentEncoding.encodeComponent($0))" }
        }
        let base = "https://apps.apple.com/app/id\(isi)"
        return query.isEmpty ? base : base + "?" + query.joined(separator: "&")
    }

    /// `https://play.google.com/store/apps/details?id=<apn>&referrer=<encoded referrer>`. The referrer carries the
    /// campaign (`utm_*`), `amv`, and whatever `extraReferrer` adds (the click id, for deferred links); the app
    /// reads it back through the Play Install Referrer API.
    /// - Parameters:
    ///   - parameters: the link's parameters.
    ///   - extraReferrer: more referrer pairs, such as the click's id.
    /// - Returns: the Google Play listing of `apn` with the utm parameters in its referrer, or nil without `apn`.
    public static func playStore(_ parameters: LinkParameters, extraReferrer: [(String, String)] = []) -> String? {
        guard let apn = parameters.apn, !apn.isEmpty else { return nil }
        var referrer = extraReferrer
        referrer += LinkParameter.utm.compactMap { parameter in parameters[parameter].map { (parameter.name, $0) } }
        if let amv = parameters.amv { referrer.append(("amv", amv)) }
        var url = "https://play.google.com/store/apps/details?id=\(PercentEncoding.encodeComponent(apn))"
        if !referrer.isEmpty {
            let encoded = referrer.map { "\($0.0)=\(PercentEncoding.encodeComponent($0.1))" }.joined(separator: "&")
            url += "&referrer=" + PercentEncoding.encodeComponent(encoded)
        }
        return url
    }
}
