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
        // Built byte by byte in one buffer: it runs on every Android click that may lead to an install.
        var url: [UInt8] = []
        url.reserveCapacity(160)
        url.append(contentsOf: "https://play.google.com/store/apps/details?id=".utf8)
        PercentEncoding.appendComponent(apn.utf8, to: &url)
        var pairs = 0
        // `key=value` pairs with encoded values, joined by `&`, then encoded again as the one `referrer` value.
        func appendReferrer(_ key: String, _ value: String) {
            url.append(contentsOf: pairs == 0 ? "&referrer=".utf8 : "%26".utf8)
            PercentEncoding.appendComponent(key.utf8, to: &url)
            url.append(contentsOf: "%3D".utf8)
            PercentEncoding.appendComponent(value.utf8, to: &url, times: 2)
            pairs += 1
        }
        for (key, value) in extraReferrer { appendReferrer(key, value) }
        for parameter in LinkParameter.utm { if let value = parameters[parameter] { appendReferrer(parameter.name, value) } }
        if let amv = parameters.amvVersionCode { appendReferrer("amv", amv) }
        return String(decoding: url, as: UTF8.self)
    }
}
