/// FDL's `dynamicLinkInfo`: the parameters of a long link as a JSON object. Every field maps to one parameter.
public struct DynamicLinkInfo: Codable, Sendable, Equatable {
    public struct AndroidInfo: Codable, Sendable, Equatable {
        public var androidPackageName: String?
        public var androidFallbackLink: String?
        public var androidMinPackageVersionCode: String?
        public var androidLink: String?
    }

    public struct IOSInfo: Codable, Sendable, Equatable {
        public var iosBundleId: String?
        public var iosFallbackLink: String?
        public var iosCustomScheme: String?
        public var iosIpadFallbackLink: String?
        public var iosIpadBundleId: String?
        public var iosAppStoreId: String?
        public var iosMinimumVersion: String?
    }

    public struct NavigationInfo: Codable, Sendable, Equatable {
        public var enableForcedRedirect: Bool?
    }

    public struct AnalyticsInfo: Codable, Sendable, Equatable {
        public struct GooglePlayAnalytics: Codable, Sendable, Equatable {
            public var utmSource: String?
            public var utmMedium: String?
            public var utmCampaign: String?
            public var utmTerm: String?
            public var utmContent: String?
            /// Deprecated by FDL and ignored.
            public var gclid: String?
        }

        public struct ITunesConnectAnalytics: Codable, Sendable, Equatable {
            public var at: String?
            public var ct: String?
            public var mt: String?
            public var pt: String?
        }

        public var googlePlayAnalytics: GooglePlayAnalytics?
        public var itunesConnectAnalytics: ITunesConnectAnalytics?
    }

    public struct SocialMetaTagInfo: Codable, Sendable, Equatable {
        public var socialTitle: String?
        public var socialDescription: String?
        public var socialImageLink: String?
    }

    public struct DesktopInfo: Codable, Sendable, Equatable {
        public var desktopFallbackLink: String?
    }

    public var domainUriPrefix: String?
    /// The legacy form: a host such as `go.pictlink.com`.
    public var dynamicLinkDomain: String?
    public var link: String?
    public var androidInfo: AndroidInfo?
    public var iosInfo: IOSInfo?
    public var navigationInfo: NavigationInfo?
    public var analyticsInfo: AnalyticsInfo?
    public var socialMetaTagInfo: SocialMetaTagInfo?
    public var desktopInfo: DesktopInfo?

    public init() {}

    /// The parameters these fields stand for.
    public var parameters: LinkParameters {
        var p = LinkParameters()
        p.link = link
        p.apn = androidInfo?.androidPackageName
        p.afl = androidInfo?.androidFallbackLink
        p.amv = androidInfo?.androidMinPackageVersionCode
        p.al = androidInfo?.androidLink
        p.ibi = iosInfo?.iosBundleId
        p.ifl = iosInfo?.iosFallbackLink
        p.ius = iosInfo?.iosCustomScheme
        p.ipfl = iosInfo?.iosIpadFallbackLink
        p.ipbi = iosInfo?.iosIpadBundleId
        p.isi = iosInfo?.iosAppStoreId
        p.imv = iosInfo?.iosMinimumVersion
        if navigationInfo?.enableForcedRedirect == true { p.efr = "1" }
        let play = analyticsInfo?.googlePlayAnalytics
        p.utmSource = play?.utmSource
        p.utmMedium = play?.utmMedium
        p.utmCampaign = play?.utmCampaign
        p.utmTerm = play?.utmTerm
        p.utmContent = play?.utmContent
        let itunes = analyticsInfo?.itunesConnectAnalytics
        p.at = itunes?.at
        p.ct = itunes?.ct
        p.mt = itunes?.mt
        p.pt = itunes?.pt
        p.st = socialMetaTagInfo?.socialTitle
        p.sd = socialMetaTagInfo?.socialDescription
        p.si = socialMetaTagInfo?.socialImageLink
        p.ofl = desktopInfo?.desktopFallbackLink
        return p
    }

    /// The fields for `parameters` under `domainUriPrefix` (what the client sends when it builds from flags).
    public init(domainUriPrefix: String, parameters p: LinkParameters) {
        self.domainUriPrefix = domainUriPrefix
        link = p.link
        if p.apn != nil || p.afl != nil || p.amv != nil || p.al != nil {
            androidInfo = AndroidInfo(
                androidPackageName: p.apn, androidFallbackLink: p.afl, androidMinPackageVersionCode: p.amv, androidLink: p.al)
        }
        if [p.ibi, p.ifl, p.ius, p.ipfl, p.ipbi, p.isi, p.imv].contains(where: { $0 != nil }) {
            iosInfo = IOSInfo(
                iosBundleId: p.ibi, iosFallbackLink: p.ifl, iosCustomScheme: p.ius, iosIpadFallbackLink: p.ipfl,
                iosIpadBundleId: p.ipbi, iosAppStoreId: p.isi, iosMinimumVersion: p.imv)
        }
        if p.efr != nil { navigationInfo = NavigationInfo(enableForcedRedirect: p.isForcedRedirect) }
        let utm = [p.utmSource, p.utmMedium, p.utmCampaign, p.utmTerm, p.utmContent]
        let itunes = [p.at, p.ct, p.mt, p.pt]
        if utm.contains(where: { $0 != nil }) || itunes.contains(where: { $0 != nil }) {
            analyticsInfo = AnalyticsInfo(
                googlePlayAnalytics: utm.contains(where: { $0 != nil })
                    ? .init(utmSource: p.utmSource, utmMedium: p.utmMedium, utmCampaign: p.utmCampaign, utmTerm: p.utmTerm, utmContent: p.utmContent)
                    : nil,
                itunesConnectAnalytics: itunes.contains(where: { $0 != nil }) ? .init(at: p.at, ct: p.ct, mt: p.mt, pt: p.pt) : nil)
        }
        if p.st != nil || p.sd != nil || p.si != nil {
            socialMetaTagInfo = SocialMetaTagInfo(socialTitle: p.st, socialDescription: p.sd, socialImageLink: p.si)
        }
        if let ofl = p.ofl { desktopInfo = DesktopInfo(desktopFallbackLink: ofl) }
    }
}
