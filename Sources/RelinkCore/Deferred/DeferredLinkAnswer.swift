/// FDL's answer for a claimed click, from what the click resolved to.
public enum DeferredLinkAnswer {
    /// The answer for a click on `platform` (iOS or Android) with `parameters`.
    public static func matched(
        parameters: LinkParameters, android: Bool, requestedLink: String, resolvedLink: String,
        confidence: AttributionConfidence, message: String, requestIpVersion: IPAddress.Version?
    ) -> InstallAttributionResponse {
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
            utmTerm: parameters.utmTerm, appMinimumVersion: android ? parameters.amv : parameters.imv,
            requestIpVersion: requestIpVersion?.name, fallbackLink: fallback)
    }

    public static func none(message: String, requestIpVersion: IPAddress.Version?) -> InstallAttributionResponse {
        InstallAttributionResponse(matchMessage: message, requestIpVersion: requestIpVersion?.name)
    }
}
