import Foundation

/// Decides which variant and which rule a click gets: a pure function over a link's compiled rules and the click.
public enum RuleEvaluator {
    /// Rule platform names and the platforms they take in.
    static let platforms: [String: Set<Platform>] = [
        "ios": [.iPhone, .iPad], "iphone": [.iPhone], "ipad": [.iPad], "android": [.android], "desktop": [.desktop],
        "crawler": [.crawler], "other": [.other],
    ]

    /// A link's rules made ready for the click path: sets instead of lists, the time windows parsed.
    public struct Compiled: Sendable {
        /// A class: the click path walks the rules without copying each one's strings and arrays.
        final class Rule: Sendable {
            let index: Int
            let name: String?
            /// Two ASCII letters packed in 16 bits: a few comparisons instead of hashing strings on every click.
            let countries: [UInt16]?
            /// Lowercased tags; a tag without a region takes every region of its language.
            let languages: [String]?
            let platforms: Set<Platform>?
            let osVersion: VersionRange?
            let time: TimeWindow.Compiled?
            let destination: DestinationOverride

            init(
                index: Int, name: String?, countries: [UInt16]?, languages: [String]?, platforms: Set<Platform>?, osVersion: VersionRange?,
                time: TimeWindow.Compiled?, destination: DestinationOverride
            ) {
                self.index = index
                self.name = name
                self.countries = countries
                self.languages = languages
                self.platforms = platforms
                self.osVersion = osVersion
                self.time = time
                self.destination = destination
            }
        }

        var rules: [Rule]
        var variants: [LinkVariant]
        var totalWeight: Int

        public var isEmpty: Bool { rules.isEmpty && variants.isEmpty }
        /// The destinations of the variant called `name`, if the link still has it.
        public func variant(named name: String) -> DestinationOverride? {
            variants.first { $0.name == name }?.destination
        }

        /// Variants with weight, which need the visitor's key.
        public var hasVariants: Bool { totalWeight > 0 }

        /// Some rule looks at the OS version, which the click path reads from the User-Agent only then.
        public var usesOSVersion: Bool { rules.contains { $0.osVersion != nil } }

        /// Compiles rules already checked by `LinkRules.problems`; a rule that still cannot be read never matches.
        public init(_ rules: LinkRules) {
            self.rules = rules.rules.enumerated().compactMap { index, rule in
                var time: TimeWindow.Compiled?
                if let window = rule.when.time {
                    guard case .success(let compiled) = window.compiled() else { return nil }
                    time = compiled
                }
                return Rule(
                    index: index, name: rule.name, countries: rule.when.countries.map { $0.compactMap { RuleEvaluator.packed($0.uppercased()) } },
                    languages: rule.when.languages?.map { $0.lowercased().replacingOccurrences(of: "_", with: "-") },
                    platforms: rule.when.platforms.map { Set($0.flatMap { RuleEvaluator.platforms[$0.lowercased()] ?? [] }) },
                    osVersion: rule.when.osVersion, time: time, destination: rule.then)
            }
            variants = rules.variants
            totalWeight = rules.variants.reduce(0) { $0 + max(0, $1.weight) }
        }
    }

    /// What the rules decided for one click.
    public struct Decision: Sendable, Equatable {
        /// The link's parameters with the variant's and the rule's destinations in place.
        public var parameters: LinkParameters
        public var variant: String?
        /// The matching rule's position in the list, and its name.
        public var rule: Int?
        public var ruleName: String?
        /// Why, rule by rule, for the debug page: the first condition that failed, or that all held.
        public var explanation: [String]
    }

    /// - Parameters:
    ///   - compiled: the link's rules (and its project's, after them).
    ///   - parameters: the link's parameters, defaults applied.
    ///   - context: the click.
    ///   - explain: collect the explanation (the debug page); the click path leaves it off.
    public static func decide(_ compiled: Compiled, parameters: LinkParameters, context: ClickContext, explain: Bool = false) -> Decision {
        var decision = Decision(parameters: parameters, explanation: [])
        if compiled.totalWeight > 0 {
            var bucket = Int(stableHash(context.visitorKey) % UInt64(compiled.totalWeight))
            for variant in compiled.variants where variant.weight > 0 {
                if bucket < variant.weight {
                    decision.variant = variant.name
                    decision.parameters = variant.destination.applied(to: decision.parameters)
                    if explain { decision.explanation.append("variant \(variant.name): \(variant.weight) of \(compiled.totalWeight) by weight") }
                    break
                }
                bucket -= variant.weight
            }
        }
        let country = context.country.flatMap(packed)
        for rule in compiled.rules {
            let failure = firstFailure(rule, context, country: country)
            if explain {
                let label = "rule \(rule.index + 1)" + (rule.name.map { " (\($0))" } ?? "")
                decision.explanation.append(failure.map { "\(label): no, \($0.description)" } ?? "\(label): matches")
            }
            if failure == nil {
                decision.rule = rule.index
                decision.ruleName = rule.name
                decision.parameters = rule.destination.applied(to: decision.parameters)
                break
            }
        }
        return decision
    }

    /// Why a rule did not match: kept as values, and worded only for the debug page.
    enum Failure {
        case countryUnknown
        case country(String)
        case languageUnknown
        case language(String)
        case platform(Platform)
        case osVersionUnknown
        case osVersion(String)
        case time

        var description: String {
            switch self {
            case .countryUnknown: "the country is unknown"
            case .country(let country): "the country is \(country)"
            case .languageUnknown: "no Accept-Language"
            case .language(let language): "the language is \(language)"
            case .platform(let platform): "the platform is \(platform)"
            case .osVersionUnknown: "the OS version is unknown"
            case .osVersion(let version): "the OS version is \(version)"
            case .time: "outside its time window"
            }
        }
    }

    /// A two-letter country code in 16 bits; nil for anything else.
    static func packed(_ country: String) -> UInt16? {
        let bytes = Array(country.utf8)
        guard bytes.count == 2 else { return nil }
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    static func firstFailure(_ rule: Compiled.Rule, _ context: ClickContext, country: UInt16?) -> Failure? {
        if let countries = rule.countries {
            guard let country, let name = context.country else { return .countryUnknown }
            guard countries.contains(country) else { return .country(name) }
        }
        if let languages = rule.languages {
            guard let language = context.language else { return .languageUnknown }
            let base = language.split(separator: "-").first.map(String.init) ?? language
            guard languages.contains(where: { $0 == language || $0 == base }) else { return .language(language) }
        }
        if let platforms = rule.platforms, !platforms.contains(context.client.platform) {
            return .platform(context.client.platform)
        }
        if let range = rule.osVersion {
            guard let version = context.client.osVersion else { return .osVersionUnknown }
            guard range.contains(version) else { return .osVersion(version) }
        }
        if let time = rule.time, !time.contains(context.now) { return .time }
        return nil
    }

    /// FNV-1a, 64 bits: the same on every instance and after every restart (Swift's `Hasher` is seeded per process).
    static func stableHash(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        // FNV's low bits mix poorly for short keys: fold the high half in.
        return hash ^ (hash >> 29)
    }
}
