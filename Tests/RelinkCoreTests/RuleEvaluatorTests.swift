import Foundation
import Testing

@testable import RelinkCore

/// Link rules and variants: each condition kind, rule order, variants' stickiness and weights, and the checks a
/// rule set passes before it is stored.
@Suite("Link rules")
struct RuleEvaluatorTests {
    static let base = LinkParameters([.link: "https://pictlink.com/spring"])
    static let iPhone = DetectedClient(platform: .iPhone, osVersion: "17.2")
    static let android = DetectedClient(platform: .android, osVersion: "14")
    static let desktop = DetectedClient(platform: .desktop)

    static func decide(_ rules: LinkRules, _ context: ClickContext) -> RuleEvaluator.Decision {
        RuleEvaluator.decide(RuleEvaluator.Compiled(rules), parameters: base, context: context, explain: true)
    }

    static func rule(_ when: RuleCondition, _ link: String, name: String? = nil) -> LinkRule {
        LinkRule(name: name, when: when, then: DestinationOverride(link: link))
    }

    @Test func eachConditionKindMatchesAndFails() throws {
        let saturdayNoonMadrid = try #require(APITime.parse("2026-11-28T11:00:00Z"))  // 12:00 in Madrid, a Saturday
        let cases: [(RuleCondition, ClickContext, Bool)] = [
            (RuleCondition(countries: ["ES", "MX"]), ClickContext(country: "ES", client: Self.desktop), true),
            (RuleCondition(countries: ["ES", "MX"]), ClickContext(country: "FR", client: Self.desktop), false),
            (RuleCondition(countries: ["ES"]), ClickContext(client: Self.desktop), false),
            // Region fallback: `pt` takes every Portuguese; `pt-BR` only Brazil's.
            (RuleCondition(languages: ["pt"]), ClickContext(language: "pt-br", client: Self.desktop), true),
            (RuleCondition(languages: ["pt-BR"]), ClickContext(language: "pt-br", client: Self.desktop), true),
            (RuleCondition(languages: ["pt-BR"]), ClickContext(language: "pt-pt", client: Self.desktop), false),
            (RuleCondition(languages: ["pt-BR"]), ClickContext(language: "pt", client: Self.desktop), false),
            (RuleCondition(languages: ["es"]), ClickContext(client: Self.desktop), false),
            (RuleCondition(platforms: ["ios"]), ClickContext(client: Self.iPhone), true),
            (RuleCondition(platforms: ["ipad"]), ClickContext(client: Self.iPhone), false),
            (RuleCondition(platforms: ["android", "desktop"]), ClickContext(client: Self.android), true),
            (RuleCondition(osVersion: VersionRange(min: "17")), ClickContext(client: Self.iPhone), true),
            (RuleCondition(osVersion: VersionRange(max: "17")), ClickContext(client: Self.iPhone), false),
            (RuleCondition(osVersion: VersionRange(min: "13", max: "14")), ClickContext(client: Self.android), true),
            (RuleCondition(osVersion: VersionRange(min: "1")), ClickContext(client: Self.desktop), false),
            (
                RuleCondition(time: TimeWindow(days: ["sat", "sun"], timeZone: "Europe/Madrid")),
                ClickContext(client: Self.desktop, now: saturdayNoonMadrid), true
            ),
            (
                RuleCondition(time: TimeWindow(days: ["mon"], timeZone: "Europe/Madrid")),
                ClickContext(client: Self.desktop, now: saturdayNoonMadrid), false
            ),
            (
                RuleCondition(time: TimeWindow(hours: "12:00-13:00", timeZone: "Europe/Madrid")),
                ClickContext(client: Self.desktop, now: saturdayNoonMadrid), true
            ),
            (RuleCondition(time: TimeWindow(hours: "12:00-13:00")), ClickContext(client: Self.desktop, now: saturdayNoonMadrid), false),  // 11:00 UTC
            (
                RuleCondition(time: TimeWindow(from: "2026-11-01T00:00:00Z", until: "2026-12-01T00:00:00Z")),
                ClickContext(client: Self.desktop, now: saturdayNoonMadrid), true
            ),
            (RuleCondition(time: TimeWindow(until: "2026-11-28T11:00:00Z")), ClickContext(client: Self.desktop, now: saturdayNoonMadrid), false),
            (RuleCondition(), ClickContext(client: Self.desktop), true),
        ]
        for (index, (condition, context, matches)) in cases.enumerated() {
            let decision = Self.decide(LinkRules(rules: [Self.rule(condition, "https://pictlink.com/rule")]), context)
            #expect((decision.rule == 0) == matches, "case \(index): \(decision.explanation)")
            #expect(decision.parameters.link == (matches ? "https://pictlink.com/rule" : "https://pictlink.com/spring"), "case \(index)")
        }
    }

    @Test func aWindowAcrossMidnightBelongsToTheDayItStarted() throws {
        // Friday 23:30 and Saturday 01:30 in Madrid are in "fri 22:00-02:00"; Saturday 23:30 is not.
        let window = try TimeWindow(days: ["fri"], hours: "22:00-02:00", timeZone: "Europe/Madrid").compiled().get()
        #expect(window.contains(try #require(APITime.parse("2026-11-27T22:30:00Z"))))
        #expect(window.contains(try #require(APITime.parse("2026-11-28T00:30:00Z"))))
        #expect(!window.contains(try #require(APITime.parse("2026-11-28T22:30:00Z"))))
        #expect(!window.contains(try #require(APITime.parse("2026-11-28T01:30:00Z"))))
    }

    @Test func theFirstMatchingRuleWins() {
        let rules = LinkRules(rules: [
            Self.rule(RuleCondition(countries: ["FR"]), "https://pictlink.com/fr", name: "France"),
            Self.rule(RuleCondition(platforms: ["ios"]), "https://pictlink.com/ios", name: "iOS"),
            Self.rule(RuleCondition(), "https://pictlink.com/everyone-else", name: "rest"),
        ])
        let french = Self.decide(rules, ClickContext(country: "FR", client: Self.iPhone))
        #expect(french.ruleName == "France")
        #expect(french.explanation == ["rule 1 (France): matches"])
        let spanishIPhone = Self.decide(rules, ClickContext(country: "ES", client: Self.iPhone))
        #expect(spanishIPhone.ruleName == "iOS")
        #expect(spanishIPhone.explanation == ["rule 1 (France): no, the country is ES", "rule 2 (iOS): matches"])
        #expect(Self.decide(rules, ClickContext(country: "ES", client: Self.android)).parameters.link == "https://pictlink.com/everyone-else")
    }

    @Test func variantsKeepTheirVisitorsAndSplitByWeight() {
        let rules = LinkRules(variants: [
            LinkVariant(name: "a", weight: 50, destination: DestinationOverride(link: "https://pictlink.com/a")),
            LinkVariant(name: "b", weight: 30, destination: DestinationOverride(link: "https://pictlink.com/b")),
            LinkVariant(name: "c", weight: 20, destination: DestinationOverride(link: "https://pictlink.com/c")),
            LinkVariant(name: "off", weight: 0, destination: DestinationOverride(link: "https://pictlink.com/off")),
        ])
        let compiled = RuleEvaluator.Compiled(rules)
        var counts: [String: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        let visitors = 100_000
        for index in 0..<visitors {
            // A visitor key as the server builds one: network and browser.
            let key = "203.0.\(index / 256 % 256).\(index % 256)|Mozilla/5.0 \(generator.next() % 1000)"
            let context = ClickContext(client: Self.desktop, visitorKey: key)
            let decision = RuleEvaluator.decide(compiled, parameters: Self.base, context: context)
            counts[decision.variant ?? "none", default: 0] += 1
            if index % 1000 == 0 {
                // The same visitor again, later: the same variant.
                #expect(
                    RuleEvaluator.decide(
                        compiled, parameters: Self.base, context: ClickContext(client: Self.iPhone, now: Date() + 3600, visitorKey: key)
                    ).variant == decision.variant)
            }
        }
        for (name, share) in [("a", 0.5), ("b", 0.3), ("c", 0.2)] {
            let measured = Double(counts[name] ?? 0) / Double(visitors)
            #expect(abs(measured - share) <= 0.02, "\(name): \(measured)")
        }
        #expect(counts["off"] == nil)
        #expect(counts["none"] == nil)
    }

    @Test func aRuleOverridesTheVariantItIsGiven() {
        let rules = LinkRules(
            rules: [Self.rule(RuleCondition(countries: ["JP"]), "https://pictlink.jp/")],
            variants: [
                LinkVariant(
                    name: "only", weight: 1, destination: DestinationOverride(link: "https://pictlink.com/v", ofl: "https://pictlink.com/web"))
            ])
        let decision = Self.decide(rules, ClickContext(country: "JP", client: Self.desktop, visitorKey: "x"))
        #expect(decision.variant == "only")
        #expect(decision.parameters.link == "https://pictlink.jp/")
        #expect(decision.parameters.ofl == "https://pictlink.com/web")
    }

    @Test func problemsAreNamedWhereTheyAre() {
        let rules = LinkRules(
            rules: [
                LinkRule(when: RuleCondition(countries: ["es"], languages: ["english"], platforms: ["windows"]), then: DestinationOverride()),
                LinkRule(
                    when: RuleCondition(osVersion: VersionRange(min: "seventeen"), time: TimeWindow(hours: "9-17", timeZone: "Mars/Olympus")),
                    then: DestinationOverride(link: "javascript:alert(1)", ofl: "https://evil.example/")),
            ],
            variants: [LinkVariant(name: "a b", weight: 0), LinkVariant(name: "a b", weight: 20_000)])
        let problems = rules.problems { $0.hasPrefix("https://pictlink.com") }.map(\.message)
        for expected in [
            "rules[0].when.countries: 'es' is not an ISO 3166-1 alpha-2 code such as ES",
            "rules[0].when.languages: 'english' is not a language tag such as es or pt-BR",
            "rules[0].then must set link, afl, ifl, ipfl or ofl",
            "rules[1].when.osVersion.min must be dotted numbers such as 17.4",
            "rules[1].when.time.hours must be HH:MM-HH:MM with two different times, got '9-17'",
            "rules[1].then.link must be an http(s) URL",
            "rules[1].then.ofl 'https://evil.example/' is not allowed by the project's allowlist",
            "variants[0].name must be 1–32 characters A-Z a-z 0-9 - _",
            "variants[1].name 'a b' is used twice",
            "variants[1].weight must be 0 to 10000",
        ] {
            #expect(problems.contains(expected), "\(expected)\n\(problems)")
        }
        #expect(problems.contains { $0.hasPrefix("rules[0].when.platforms: 'windows' is not one of") })
        let spoofing = LinkRules(rules: [
            LinkRule(name: "ok\u{202E}cba", when: RuleCondition(), then: DestinationOverride(ofl: "https://pictlink.com"))
        ])
        #expect(spoofing.problems { _ in true }.map(\.message) == ["rules[0].name must be 1–100 characters without control or formatting characters"])
        #expect(LinkRules(rules: [Self.rule(RuleCondition(countries: ["ES"]), "https://pictlink.com/es")]).problems { _ in true }.isEmpty)
    }

    @Test func thePreferredLanguageIsTheHighestQuality() {
        #expect(ClickContext.preferredLanguage("fr-CH, fr;q=0.9, en;q=0.8") == "fr-ch")
        #expect(ClickContext.preferredLanguage("en;q=0.5, pt_BR;q=0.9") == "pt-br")
        #expect(ClickContext.preferredLanguage("*") == nil)
        #expect(ClickContext.preferredLanguage(nil) == nil)
        #expect(ClickContext.preferredLanguage("<script>, es") == "es")
        #expect(ClickContext.preferredLanguage("EN-us;q=0.8, fr;q=0.85") == "fr")
        #expect(ClickContext.preferredLanguage("da, en-gb;q=0.8, en;q=0.7") == "da")
        #expect(ClickContext.preferredLanguage("es;q=0") == nil)
        #expect(ClickContext.preferredLanguage("zh-Hant-TW;q=1.0") == "zh-hant-tw")
        #expect(ClickContext.preferredLanguage(String(repeating: "x", count: 10_000)) == nil)
    }
}
