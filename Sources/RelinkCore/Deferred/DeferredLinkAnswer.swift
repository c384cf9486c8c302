/// FDL's answer for a claimed click, from what the click resolved to.
public enum DeferredLinkAnswer {
    /// The answer for a click on `platform` with `parameters`.
    /// - Parameters:
    ///   - parameters: the clicked link's parameters, with the project's defaults applied.
    ///   - platform: the claiming app's platform, which picks the deep link (`al` on Android), fallback and minimum version.
    ///   - requestedLink: the link as clicked.
    ///   - resolvedLink: its long form.
    ///   - confidence: how sure the match is.
    ///   - message: FDL's `matchMessage`.
    ///   - requestIpVersion: the claim's address family, when known.
    /// - Returns: FDL's response.
    public static func matched(
        parameters: LinkParameters, platform: AppPlatform, requestedLink: String, resolvedLink: String,
        confidence: AttributionConfidence, message: String, requestIpVersion: IPAddress.Version?
    ) -> InstallAttributionResponse {
        let android = platform == .android
        let fallback: String?
        if android {
            fallback = RedirectPlanner.httpURL(parameters.afl) ?? StoreURL.playStore(parameters) ?? parameters.link
        } else {
            fallback = RedirectPlanner.notInstalledDestination(parameters, iPad: false).url
        }
        return InstallAttributionResponse(
            deepLink: android ? (parameters.al ?? parameters.link) : parameters.link, attributionConfidence: confidence,
            matchMessage: message, requestedLink: requestedLink, resolvedLink: resolvedLink, utmSource: parameters.utmSource,
            utmMedium: parameters.utmMedium, utmCampaign: parameters.utmCampaign, utmContent: parameters.utmContent,
            utmTerm: parameters.utmTerm, appMinimumVersion: android ? parameters.amvVersionCode : parameters.imv,
            requestIpVersion: requestIpVersion?.name, fallbackLink: fallback)
    }

    /// The answer without a match.
    /// - Parameters:
    ///   - message: why nothing matched (FDL's `matchMessage`).
    ///   - requestIpVersion: the claim's address family, when known.
    /// - Returns: FDL's response, without a deep link.
    public static func none(message: String, requestIpVersion: IPAddress.Version?) -> InstallAttributionResponse {
        InstallAttributionResponse(matchMessage: message, requestIpVersion: requestIpVersion?.name)
    }
}
