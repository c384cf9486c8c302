import Testing

@testable import RelinkCore

@Suite("Link validation")
struct LinkValidatorTests {
    static let project = Project(
        id: "pictlink",
        domains: [try! DomainURIPrefix("https://go.pictlink.com"), try! DomainURIPrefix("https://pictlink.com/links")],
        ios: [
            IOSApp(bundleId: "jp.furyu.pictlink.ios", teamId: "ABCDE12345", appStoreId: "000000001", iPadBundleId: "jp.furyu.pictlink.ipad")
        ],
        android: [AndroidApp(packageName: "jp.furyu.pictlink.android", sha256CertFingerprints: [])]
    )
    static let context = LinkValidationContext(linkDomains: project.domains, project: project)
    static let base = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa"

    /// For each warning code, a query (appended to a valid link) that draws exactly that warning.
    static let warningFixtures: [(LinkWarningCode, String)] = [
        (.notInProjectAndroidPackageName, "&apn=com.other.app"),
        (.notIntegerAndroidPackageMinVersion, "&apn=jp.furyu.pictlink.android&amv=1.2"),
        (.unnecessaryAndroidPackageMinVersion, "&amv=12"),
        (.notURIAndroidLink, "&al=not%20a%20uri"),
        (.unnecessaryAndroidLink, "&al=https%3A%2F%2Fpictlink.com%2Fa"),
        (.notURIAndroidFallbackLink, "&afl=pictlink.com%2Fandroid"),
        (.badURISchemeAndroidFallbackLink, "&afl=market%3A%2F%2Fdetails%3Fid%3Dx"),
        (.notInProjectIOSBundleID, "&ibi=com.other.ios"),
        (.notInProjectIPadBundleID, "&ipbi=com.other.ipad"),
        (.unnecessaryIOSURLScheme, "&ius=pictlink"),
        (.notNumericIOSAppStoreID, "&ibi=jp.furyu.pictlink.ios&isi=abc"),
        (.unnecessaryIOSAppStoreID, "&isi=000000001"),
        (.notMatchingIOSBundleIDAndStoreID, "&ibi=jp.furyu.pictlink.ios&isi=999"),
        (.notURIIOSFallbackLink, "&ifl=%2Frelative"),
        (.badURISchemeIOSFallbackLink, "&ifl=itms-apps%3A%2F%2Fitunes.apple.com%2Fapp%2Fid1"),
        (.notURIIPadFallbackLink, "&ipfl=ipad"),
        (.badURISchemeIPadFallbackLink, "&ipfl=ftp%3A%2F%2Fpictlink.com%2F"),
        (.notURIOtherPlatformFallbackLink, "&ofl=www.pictlink.com"),
        (.badURISchemeOtherPlatformFallbackLink, "&ofl=javascript%3Aalert(1)"),
        (.notURISocialImageLink, "&si=og.png"),
        (.badURISchemeSocialImageLink, "&si=data%3Aimage%2Fpng%3Bbase64%2CAAAA"),
        (.linkWithFragments, "%23section"),
        (.badDebugParam, "&d=yes"),
        (.deprecatedParam, "&gclid=abc"),
        (.unrecognizedParam, "&utm_id=42"),
        (.tooLongParam, "&st=" + String(repeating: "t", count: 2049)),
    ]

    @Test(arguments: warningFixtures)
    func drawsEachWarning(code: LinkWarningCode, query: String) {
        let result = LongLink.parse(Self.base + query, context: Self.context)
        #expect(result.isValid, "\(result.errors)")
        #expect(result.warnings.map(\.code) == [code])
        #expect(result.warnings.allSatisfy { !$0.message.isEmpty && $0.message.hasSuffix(".") })
    }

    /// Every code the validator emits has a fixture; the one about rules comes from the server's setup, not the link's
    /// parameters (LinkRulesTests covers it).
    @Test func fixturesCoverEveryWarningCode() {
        #expect(Set(Self.warningFixtures.map(\.0)) == Set(LinkWarningCode.allCases).subtracting([.countryRulesWithoutCountrySource]))
    }

    @Test func aFragmentAfterTheParametersIsReported() {
        let result = LongLink.parse("https://go.pictlink.com/?link=https://pictlink.com/a#frag")
        #expect(result.warnings.map(\.code) == [.linkWithFragments])
        #expect(result.parameters.link == "https://pictlink.com/a")
    }

    @Test func withoutAProjectTheProjectChecksAreSkipped() {
        let result = LongLink.parse(Self.base + "&apn=com.other.app&ibi=com.other.ios&isi=999")
        #expect(result.warnings.isEmpty)
    }

    @Test func aValidFullLinkDrawsNothing() {
        let query =
            "&apn=jp.furyu.pictlink.android&amv=42&afl=https%3A%2F%2Fpictlink.com%2Fandroid&ibi=jp.furyu.pictlink.ios"
            + "&ifl=https%3A%2F%2Fpictlink.com%2Fios&ius=pictlink&ipfl=https%3A%2F%2Fpictlink.com%2Fipad&ipbi=jp.furyu.pictlink.ipad"
            + "&isi=000000001&imv=2.1&efr=1&ofl=https%3A%2F%2Fpictlink.com%2Fdesktop&st=Title&sd=Description"
            + "&si=https%3A%2F%2Fpictlink.com%2Fog.png&utm_source=s&utm_medium=m&utm_campaign=c&utm_term=t&utm_content=x"
            + "&at=1&ct=2&mt=8&pt=4&d=1"
        let result = LongLink.parse(Self.base + query, context: Self.context)
        #expect(result.isValid)
        #expect(result.warnings.isEmpty, "\(result.warnings)")
        #expect(result.parameters.count == LinkParameter.allCases.count - 1)  // all but `al`
        #expect(result.parameters.isDebug)
        #expect(result.parameters.isForcedRedirect)
    }

    // MARK: Errors

    @Test(arguments: [
        ("https://go.pictlink.com/?apn=x.y", LinkError.Code.missingLink),
        ("https://go.pictlink.com/", .missingLink),
        ("https://go.pictlink.com/?link=javascript:alert(1)", .badURISchemeLink),
        ("https://go.pictlink.com/?link=mailto%3Aa%40b.c", .badURISchemeLink),
        ("https://go.pictlink.com/?link=pictlink.com%2Fa", .notURILink),
        ("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa%0D%0ASet-Cookie%3Ax", .notURILink),
        ("https://go.pictlink.com/?link=https%3A%2F%2Fgo.pictlink.com%2Fabc", .linkIsDynamicLink),
        ("https://go.pictlink.com/?link=https%3A%2F%2FGO.Pictlink.COM%2F%3Flink%3Dx", .linkIsDynamicLink),
        ("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Flinks%2Fabc", .linkIsDynamicLink),
        ("https://go.pictlink.com/?link=https://pictlink.com/&link=https://pictlink.com/", .duplicateParam),
        ("https://go.pictlink.com/?link=%E0%A4", .longLinkNotParsable),
    ])
    func rejectsWhatCanNeverRedirect(url: String, code: LinkError.Code) {
        let result = LongLink.parse(url, context: Self.context)
        #expect(result.errors.map(\.code) == [code])
        #expect(!result.isValid)
        #expect(result.longLink == nil)
    }

    @Test func aLinkOnTheSameHostOutsideThePrefixPathIsFine() {
        let result = LongLink.parse("https://pictlink.com/links/?link=https%3A%2F%2Fpictlink.com%2FmyPage")
        #expect(result.isValid)
    }

    @Test func theLinkDomainsOfTheContextCount() {
        let url = "https://go.example.com/?link=https%3A%2F%2Fgo.pictlink.com%2Fabc"
        #expect(LongLink.parse(url).isValid)
        #expect(LongLink.parse(url, context: Self.context).errors.map(\.code) == [.linkIsDynamicLink])
    }

    /// What a browser would resolve into a link domain is refused as that link would be: dot segments (also `%2e`
    /// and `\\`), another case, a final dot, another scheme on the default port, and compatibility forms of the host
    /// (they were taken as written, and the click came back to Relink, counted again at each turn).
    @Test(arguments: [
        "https%3A%2F%2Fpictlink.com%2Fx%2F..%2Flinks%2Floop",
        "https%3A%2F%2Fpictlink.com%2Fx%2F%252e%252E%2Flinks%2Floop",
        "https%3A%2F%2Fpictlink.com%2Fx%2F.%252e%2Flinks%2Floop",
        "https%3A%2F%2Fpictlink.com%2Fx%5C..%5Clinks%5Cloop",
        "https%3A%2F%2Fpictlink.com%2F.%2Flinks",
        "https%3A%2F%2Fpictlink.com%2Flinks%2Fa%2F..",
        "http%3A%2F%2Fgo.pictlink.com%2Floop",
        "https%3A%2F%2Fgo.pictlink.com.%3A443%2Floop",
        "https%3A%2F%2F%EF%BD%87%EF%BD%8F.pictlink.com%2Floop",
        "https%3A%2F%2Fgo.pictlin%E2%84%AA.com%2Floop",
        "https%3A%2F%2Fgo%E3%80%82pictlink.com%2Floop",
    ])
    func aLinkABrowserWouldResolveIntoALinkDomainIsRefused(link: String) {
        let result = LongLink.parse("https://go.pictlink.com/?link=" + link, context: Self.context)
        #expect(result.errors.map(\.code) == [.linkIsDynamicLink], "\(link)")
    }

    @Test(arguments: [
        "https%3A%2F%2Fpictlink.com%2Flinksmore%2Fa",
        "https%3A%2F%2Fpictlink.com%2Fx%2F..%2Fother",
        "https%3A%2F%2Fpictlink.com%2F%256Cinks%2Fa",
        "https%3A%2F%2Fgo.pictlink.com%3A8443%2Fa",
        "https%3A%2F%2Fm%C3%BCnchen.example%2Fa",
    ])
    func aLinkThatStaysOutOfTheLinkDomainsIsFine(link: String) {
        let result = LongLink.parse("https://go.pictlink.com/?link=" + link, context: Self.context)
        #expect(result.errors.isEmpty, "\(link): \(result.errors)")
    }

    /// A fallback that leads back into a link domain loops like such a `link`: the same error, naming the fallback
    /// (they were never checked).
    @Test(arguments: ["ofl", "afl", "ifl", "ipfl"])
    func aFallbackIntoALinkDomainIsRefused(parameter: String) {
        for target in [
            "https%3A%2F%2Fpictlink.com%2Flinks%2Floop", "https%3A%2F%2Fgo.pictlink.com%2Floop", "https%3A%2F%2Fpictlink.com%2Fa%2F..%2Flinks",
        ] {
            let url = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa&\(parameter)=\(target)"
            let result = LongLink.parse(url, context: Self.context)
            #expect(result.errors.map(\.code) == [.linkIsDynamicLink], "\(parameter)=\(target)")
            #expect(result.errors.first?.parameter == parameter)
            // A click is refused as well: the errors a redirect checks are the same.
            let clickErrors = LinkValidator.validate(result.parameters, prefix: result.prefix, context: Self.context, warnings: false).errors
            #expect(clickErrors.map(\.code) == [.linkIsDynamicLink])
        }
        let elsewhere = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa&\(parameter)=https%3A%2F%2Fpictlink.com%2Fhelp"
        #expect(LongLink.parse(elsewhere, context: Self.context).errors.isEmpty)
    }

    /// Rules, variants and a project's desktop fallback are held to the same: a destination in a link domain loops.
    @Test func ruleDestinationsIntoALinkDomainAreProblems() throws {
        let domains = [try DomainURIPrefix("https://go.pictlink.com"), try DomainURIPrefix("https://pictlink.com/links")]
        let rules = LinkRules(
            rules: [LinkRule(when: RuleCondition(platforms: ["desktop"]), then: DestinationOverride(ofl: "https://pictlink.com/x/../links/a"))],
            variants: [LinkVariant(name: "b", weight: 1, destination: DestinationOverride(link: "https://GO.pictlink.com/b"))])
        let problems = rules.problems(isAllowed: { _ in true }, linkDomains: domains).map(\.message)
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.allSatisfy { $0.contains("points into the Relink link domain") }, "\(problems)")
        #expect(rules.problems(isAllowed: { _ in true }).isEmpty)
    }
}
