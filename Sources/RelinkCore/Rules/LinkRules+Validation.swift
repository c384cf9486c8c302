import Foundation

extension LinkRules {
    /// Every problem, each naming where (`rules[2].when.countries`).
    /// - Parameters:
    ///   - isAllowed: whether a destination URL passes the project's allowlist.
    ///   - linkDomains: the link domains no destination may lead back into (a click there would loop).
    public func problems(isAllowed: (String) -> Bool, linkDomains: [DomainURIPrefix] = []) -> [RuleProblem] {
        var problems: [RuleProblem] = []
        if rules.count > Self.maximumRules { problems.append("at most \(Self.maximumRules) rules, got \(rules.count)") }
        if variants.count > Self.maximumVariants { problems.append("at most \(Self.maximumVariants) variants, got \(variants.count)") }
        for (index, rule) in rules.enumerated() {
            let at = "rules[\(index)]"
            if let name = rule.name,
                name.isEmpty || name.unicodeScalars.count > 100
                    || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format })
            {
                problems.append("\(at).name must be 1–100 characters without control or formatting characters")
            }
            for country in rule.when.countries ?? [] where !Self.isCountry(country) {
                problems.append("\(at).when.countries: '\(country.leadingScalars(20))' is not an ISO 3166-1 alpha-2 code such as ES")
            }
            if rule.when.countries?.isEmpty == true { problems.append("\(at).when.countries must not be empty") }
            for language in rule.when.languages ?? [] where !Self.isLanguage(language) {
                problems.append("\(at).when.languages: '\(language.leadingScalars(40))' is not a language tag such as es or pt-BR")
            }
            if rule.when.languages?.isEmpty == true { problems.append("\(at).when.languages must not be empty") }
            for platform in rule.when.platforms ?? [] where RuleEvaluator.platforms[platform.lowercased()] == nil {
                problems.append(
                    "\(at).when.platforms: '\(platform.leadingScalars(20))' is not one of \(RuleEvaluator.platforms.keys.sorted().joined(separator: ", "))"
                )
            }
            if rule.when.platforms?.isEmpty == true { problems.append("\(at).when.platforms must not be empty") }
            if let range = rule.when.osVersion {
                for (end, value) in [("min", range.min), ("max", range.max)] {
                    if let value, !Self.isVersion(value) { problems.append("\(at).when.osVersion.\(end) must be dotted numbers such as 17.4") }
                }
                if range.min == nil, range.max == nil { problems.append("\(at).when.osVersion needs min or max") }
            }
            if let time = rule.when.time, case .failure(let problem) = time.compiled() { problems.append("\(at).when.\(problem.message)") }
            problems += Self.destinationProblems(rule.then, at: "\(at).then", isAllowed: isAllowed, linkDomains: linkDomains)
            if rule.then.urls.isEmpty { problems.append("\(at).then must set link, afl, ifl, ipfl or ofl") }
        }
        var names: Set<String> = []
        for (index, variant) in variants.enumerated() {
            let at = "variants[\(index)]"
            if !Self.isVariantName(variant.name) { problems.append("\(at).name must be 1–32 characters A-Z a-z 0-9 - _") }
            if !names.insert(variant.name).inserted { problems.append("\(at).name '\(variant.name)' is used twice") }
            if !(0...10_000).contains(variant.weight) { problems.append("\(at).weight must be 0 to 10000") }
            problems += Self.destinationProblems(variant.destination, at: "\(at).destination", isAllowed: isAllowed, linkDomains: linkDomains)
        }
        if !variants.isEmpty, variants.allSatisfy({ $0.weight == 0 }) { problems.append("variants: at least one weight must be above 0") }
        return problems
    }

    static func destinationProblems(
        _ destination: DestinationOverride, at: String, isAllowed: (String) -> Bool, linkDomains: [DomainURIPrefix]
    ) -> [RuleProblem] {
        destination.urls.compactMap { parameter, url in
            guard let uri = AbsoluteURI(url), uri.isHTTP else { return "\(at).\(parameter) must be an http(s) URL" }
            if let problem = loopProblem(uri, at: "\(at).\(parameter)", linkDomains: linkDomains) { return problem }
            return isAllowed(url) ? nil : "\(at).\(parameter) '\(url.leadingScalars(200))' is not allowed by the project's allowlist"
        }
    }

    /// The destinations that lead into `linkDomains` (each would loop), and only those: for a check made once every
    /// project's domains are known.
    /// - Parameter linkDomains: the link domains no destination may lead back into.
    /// - Returns: a problem for each such destination.
    public func loopProblems(linkDomains: [DomainURIPrefix]) -> [RuleProblem] {
        let destinations =
            rules.enumerated().map { ("rules[\($0)].then", $1.then) } + variants.enumerated().map { ("variants[\($0)].destination", $1.destination) }
        return destinations.flatMap { at, destination in
            destination.urls.compactMap { parameter, url in
                AbsoluteURI(url).flatMap { Self.loopProblem($0, at: "\(at).\(parameter)", linkDomains: linkDomains) }
            }
        }
    }

    private static func loopProblem(_ uri: AbsoluteURI, at: String, linkDomains: [DomainURIPrefix]) -> RuleProblem? {
        guard let domain = linkDomains.first(where: { uri.isUnder($0) }) else { return nil }
        return "\(at) '\(uri.string.leadingScalars(200))' points into the Relink link domain \(domain), so the click would loop"
    }

    static func isCountry(_ text: String) -> Bool { text.count == 2 && text.allSatisfy { $0.isASCII && $0.isUppercase } }

    static func isLanguage(_ text: String) -> Bool {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard let first = parts.first, (2...3).contains(first.count), first.allSatisfy({ $0.isASCII && $0.isLetter }), parts.count <= 3 else {
            return false
        }
        return parts.dropFirst().allSatisfy { (2...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) } }
    }

    static func isVersion(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return (1...4).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.count <= 6 && $0.allSatisfy(\.isASCIIDigitCharacter) }
    }

    static func isVariantName(_ text: String) -> Bool {
        (1...32).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
