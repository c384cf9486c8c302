import RelinkAPI

/// The claim's answer as the client reads it: FDL's fields, only those the app gets.
struct ClaimAnswer: Decodable {
    var deepLink: String?
    var attributionConfidence: AttributionConfidence?
    var matchMessage: String
    var utmSource: String?
    var utmMedium: String?
    var utmCampaign: String?
    var utmContent: String?
    var utmTerm: String?
    var appMinimumVersion: String?
    var requestedLink: String?
    /// Not given to the app, but read: one of another type makes the answer malformed, as in the other clients.
    var resolvedLink: String?

    /// Matched with a deep link and its confidence, organic with neither; nil for one without the other.
    var result: ClaimResult? {
        switch (deepLink, attributionConfidence) {
        case (let deepLink?, let confidence?):
            return .matched(
                DeferredLink(
                    deepLink: deepLink, confidence: confidence, utmSource: utmSource, utmMedium: utmMedium, utmCampaign: utmCampaign,
                    utmContent: utmContent, utmTerm: utmTerm, minimumAppVersion: appMinimumVersion, requestedLink: requestedLink,
                    matchMessage: matchMessage))
        case (nil, nil):
            return .organic(message: matchMessage)
        default:
            return nil
        }
    }
}

/// A re-open's or resolve's answer as the client reads it.
struct LinkAnswer: Decodable {
    var deepLink: String
    var resolvedLink: String
    var utmSource: String?
    var utmMedium: String?
    var utmCampaign: String?
    var utmContent: String?
    var utmTerm: String?
    var iosMinAppVersion: String?
    var routeParameters: [String: String]?

    var link: AppLink {
        AppLink(
            deepLink: deepLink, resolvedLink: resolvedLink, utmSource: utmSource, utmMedium: utmMedium, utmCampaign: utmCampaign,
            utmContent: utmContent, utmTerm: utmTerm, minimumAppVersion: iosMinAppVersion, routeParameters: routeParameters ?? [:])
    }
}
