/// One rule of a link: when its conditions all hold (first matching rule wins), its overrides replace the link's
/// destinations for that click.
public struct LinkRule: Codable, Hashable, Sendable {
    /// A name for the debug page and stats (`"Spain on weekends"`).
    public var name: String?
    public var when: RuleCondition
    public var then: DestinationOverride

    public init(name: String? = nil, when: RuleCondition, then: DestinationOverride) {
        self.name = name
        self.when = when
        self.then = then
    }

    enum CodingKeys: String, CodingKey { case name, when, then }

    /// `when` may be left out: a rule without conditions matches every click (a last, catch-all rule).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        when = try container.decodeIfPresent(RuleCondition.self, forKey: .when) ?? RuleCondition()
        then = try container.decode(DestinationOverride.self, forKey: .then)
    }
}

/// A rule's conditions; every one that is set must hold. A rule with none always matches.
public struct RuleCondition: Codable, Hashable, Sendable {
    /// ISO 3166-1 alpha-2 codes (`ES`, `MX`), matched against the click's country.
    public var countries: [String]?
    /// Language tags (`pt-BR`, `es`): `es` matches every Spanish region, `pt-BR` only Brazilian Portuguese. The
    /// click's language is its most preferred `Accept-Language` entry.
    public var languages: [String]?
    /// `ios` (iPhone and iPad), `iphone`, `ipad`, `android`, `desktop`, `crawler`, `other`.
    public var platforms: [String]?
    /// Inclusive, dotted numbers (`15`, `17.4`); a click whose OS version is unknown does not match.
    public var osVersion: VersionRange?
    public var time: TimeWindow?

    public init(
        countries: [String]? = nil, languages: [String]? = nil, platforms: [String]? = nil, osVersion: VersionRange? = nil,
        time: TimeWindow? = nil
    ) {
        self.countries = countries
        self.languages = languages
        self.platforms = platforms
        self.osVersion = osVersion
        self.time = time
    }
}

/// Destinations a rule or a variant puts in place of the link's: the deep link and any fallback.
public struct DestinationOverride: Codable, Hashable, Sendable {
    public var link: String?
    public var afl: String?
    public var ifl: String?
    public var ipfl: String?
    public var ofl: String?

    public init(link: String? = nil, afl: String? = nil, ifl: String? = nil, ipfl: String? = nil, ofl: String? = nil) {
        self.link = link
        self.afl = afl
        self.ifl = ifl
        self.ipfl = ipfl
        self.ofl = ofl
    }

    /// The URLs it sets, by parameter name.
    public var urls: [(parameter: String, url: String)] {
        [("link", link), ("afl", afl), ("ifl", ifl), ("ipfl", ipfl), ("ofl", ofl)].compactMap { name, value in value.map { (name, $0) } }
    }

    /// `parameters` with these destinations in place.
    public func applied(to parameters: LinkParameters) -> LinkParameters {
        var result = parameters
        if let link { result.link = link }
        if let afl { result.afl = afl }
        if let ifl { result.ifl = ifl }
        if let ipfl { result.ipfl = ipfl }
        if let ofl { result.ofl = ofl }
        return result
    }
}

/// An inclusive range of dotted version numbers; either end may be open.
public struct VersionRange: Codable, Hashable, Sendable {
    public var min: String?
    public var max: String?

    public init(min: String? = nil, max: String? = nil) {
        self.min = min
        self.max = max
    }

    public func contains(_ version: String) -> Bool {
        let value = Self.numbers(version)
        if let min, Self.compare(value, Self.numbers(min)) < 0 { return false }
        if let max, Self.compare(value, Self.numbers(max)) > 0 { return false }
        return true
    }

    static func numbers(_ text: String) -> [Int] {
        text.split(separator: ".").map { Int($0) ?? 0 }
    }

    /// `17` equals `17.0`; `17.4` is above `17`.
    static func compare(_ a: [Int], _ b: [Int]) -> Int {
        for index in 0..<Swift.max(a.count, b.count) {
            let (x, y) = (index < a.count ? a[index] : 0, index < b.count ? b[index] : 0)
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }
}
