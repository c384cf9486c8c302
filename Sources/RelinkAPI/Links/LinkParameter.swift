/// A parameter of an FDL-style long link, named by its query key.
///
/// The case order is the order the builder writes them in, so links read the way FDL's builders wrote them.
public enum LinkParameter: String, CaseIterable, Sendable, Codable, Hashable {
    case link
    case apn, afl, amv, al
    case ibi, ifl, ius, ipfl, ipbi, isi, imv, efr
    case ofl
    case st, sd, si
    case utmSource = "utm_source"
    case utmMedium = "utm_medium"
    case utmCampaign = "utm_campaign"
    case utmTerm = "utm_term"
    case utmContent = "utm_content"
    case at, ct, mt, pt
    case d

    /// The query key, as it appears in a link (`utm_source`, not `utmSource`).
    public var name: String { rawValue }

    /// The position in `allCases`, for array-backed storage.
    var index: Int {
        switch self {
        case .link: 0
        case .apn: 1
        case .afl: 2
        case .amv: 3
        case .al: 4
        case .ibi: 5
        case .ifl: 6
        case .ius: 7
        case .ipfl: 8
        case .ipbi: 9
        case .isi: 10
        case .imv: 11
        case .efr: 12
        case .ofl: 13
        case .st: 14
        case .sd: 15
        case .si: 16
        case .utmSource: 17
        case .utmMedium: 18
        case .utmCampaign: 19
        case .utmTerm: 20
        case .utmContent: 21
        case .at: 22
        case .ct: 23
        case .mt: 24
        case .pt: 25
        case .d: 26
        }
    }

    /// Looks a parameter up by its query key.
    public init?(name: String) {
        self.init(rawValue: name)
    }

    /// The parameters whose values are destinations a click may be sent to; each must pass the allowlist.
    public static let destinations: [LinkParameter] = [.link, .al, .afl, .ifl, .ipfl, .ofl]
    /// The parameters apps receive as their deep link: `link`, and `al` on Android.
    public static let deepLinks: Set<LinkParameter> = [.link, .al]

    /// The five campaign parameters, in FDL's order.
    public static let utm: [LinkParameter] = [.utmSource, .utmMedium, .utmCampaign, .utmTerm, .utmContent]

    /// The App Store analytics parameters appended to the App Store URL.
    public static let appStoreAnalytics: [LinkParameter] = [.at, .ct, .mt, .pt]

    /// One line saying what the parameter does, for help texts and the debug page.
    public var summary: String {
        switch self {
        case .link: "Deep link the app opens; the destination on desktop unless ofl is set"
        case .apn: "Android package name of the app that opens the link"
        case .afl: "Android destination when the app is not installed (instead of Google Play)"
        case .amv: "Minimum Android versionCode that can open the link"
        case .al: "Legacy: a link that overrides `link` on Android"
        case .ibi: "iOS bundle ID of the app that opens the link"
        case .ifl: "iOS destination when the app is not installed (instead of the App Store)"
        case .ius: "Custom URL scheme of the iOS app, if not its bundle ID"
        case .ipfl: "iPad destination when the app is not installed"
        case .ipbi: "iPad bundle ID of the app that opens the link"
        case .isi: "App Store ID of the iOS app, for the App Store page"
        case .imv: "Minimum iOS app version, handed to the app"
        case .efr: "1 skips the iOS app preview page"
        case .ofl: "Destination on platforms other than iOS and Android"
        case .st: "Social title for link previews"
        case .sd: "Social description for link previews"
        case .si: "Social image URL for link previews"
        case .utmSource: "Campaign source"
        case .utmMedium: "Campaign medium"
        case .utmCampaign: "Campaign name"
        case .utmTerm: "Campaign term"
        case .utmContent: "Campaign content"
        case .at: "App Store affiliate token"
        case .ct: "App Store campaign token"
        case .mt: "App Store media type"
        case .pt: "App Store provider token"
        case .d: "1 shows the debug page instead of redirecting"
        }
    }
}
