import Foundation
import RelinkCore

/// Runs `body` repeatedly for about a second and returns nanoseconds per call.
func measure(_ name: String, _ body: () -> Int) -> Double {
    // `DecisionPath <word>` runs only the measurements whose name contains the word (for profiling one).
    if CommandLine.arguments.count > 1, !name.contains(CommandLine.arguments[1]) { return 0 }
    var sink = 0
    for _ in 0..<2_000 { sink &+= body() }
    let clock = ContinuousClock()
    var iterations = 0
    let start = clock.now
    while clock.now - start < .seconds(1) {
        for _ in 0..<1_000 { sink &+= body() }
        iterations += 1_000
    }
    let elapsed = clock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    let perCall = nanoseconds / Double(iterations)
    print(String(format: "%-34@ %8.0f ns/click", name as NSString, perCall), sink == 42 ? "" : "")
    return perCall
}

let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../../../routes.json")
let configuration = try RelinkConfiguration(json: Data(contentsOf: root))
let directory = DomainDirectory(configuration)
let project = configuration.project(id: "pictlink")!
let context = LinkValidationContext(linkDomains: configuration.allDomains, project: project)
let android = "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
let longQuery =
    "link=https%3A%2F%2Fpictlink.com%2FmyPage&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&ius=pictlink&isi=000000001&utm_source=bench"

func click(path: String, query: String?, userAgent: String) -> Int {
    guard let match = directory.match(host: "go.pictlink.com", path: Substring(path)) else { return 0 }
    let request = LinkRequest.resolve(
        project: match.project, prefix: match.prefix, relativePath: match.relativePath, query: query.map { Substring($0) },
        context: context)
    guard case .longLink(let link) = request, true else {
        if case .route(let link) = request {
            let client = PlatformDetector.detect(userAgent: userAgent)
            return RedirectPlanner.plan(link, project: match.project, client: client).redirectURL?.utf8.count ?? 1
        }
        return 0
    }
    let client = PlatformDetector.detect(userAgent: userAgent)
    return RedirectPlanner.plan(link, project: match.project, client: client).redirectURL?.utf8.count ?? 1
}

_ = measure("platform detection (Android)") { PlatformDetector.detect(userAgent: android).platform == .android ? 1 : 0 }
_ = measure("platform detection (iPhone)") { PlatformDetector.detect(userAgent: iPhone).platform == .iPhone ? 1 : 0 }
_ = measure("long link, Android click") { click(path: "/", query: longQuery, userAgent: android) }
_ = measure("route /p/42, Android click") { click(path: "/p/42", query: nil, userAgent: android) }
_ = measure("long link, iPhone click (preview)") { click(path: "/", query: longQuery, userAgent: iPhone) }

// Link rules (issue 18): ten rules where only the last matches, and a 50/50 split, against a plain link; the
// decision is what a short link with rules adds to a click (its plan is then made per click).
let tenRules = RuleEvaluator.Compiled(
    LinkRules(
        rules: (0..<9).map { index in
            LinkRule(
                name: "rule \(index)",
                when: RuleCondition(
                    countries: ["F\(Character(UnicodeScalar(65 + index)!))"], languages: ["pt-BR"], platforms: ["ios"],
                    osVersion: VersionRange(min: "16"),
                    time: TimeWindow(days: ["sat", "sun"], hours: "09:00-17:00", timeZone: "Europe/Madrid")),
                then: DestinationOverride(link: "https://pictlink.com/r\(index)"))
        } + [LinkRule(name: "last", when: RuleCondition(platforms: ["android"]), then: DestinationOverride(afl: "https://pictlink.com/android"))],
        variants: [
            LinkVariant(name: "a", weight: 1, destination: DestinationOverride(link: "https://pictlink.com/a")),
            LinkVariant(name: "b", weight: 1),
        ]))
let ruleRequest = LinkRequest.resolve(
    project: project, prefix: directory.match(host: "go.pictlink.com", path: "/")!.prefix, relativePath: "/", query: Substring(longQuery),
    context: context)
guard case .longLink(let ruleLink) = ruleRequest else { fatalError("the long link did not resolve") }
let androidClient = PlatformDetector.detect(userAgent: android)
let plain = measure("plan, plain link (Android)") {
    RedirectPlanner.plan(ruleLink, project: project, client: androidClient).redirectURL?.utf8.count ?? 1
}
let ruled = measure("rules (10) + variant + plan (Android)") {
    let context = ClickContext(
        country: "ES", language: ClickContext.preferredLanguage("es-ES,es;q=0.9"), client: androidClient, visitorKey: "203.0.113.0/24|" + android)
    var link = ruleLink
    link.parameters = RuleEvaluator.decide(tenRules, parameters: ruleLink.parameters, context: context).parameters
    return RedirectPlanner.plan(link, project: project, client: androidClient).redirectURL?.utf8.count ?? 1
}
if plain > 0, ruled > 0 { print(String(format: "ten rules and a variant add %.2f µs to a click's decision", (ruled - plain) / 1000)) }
