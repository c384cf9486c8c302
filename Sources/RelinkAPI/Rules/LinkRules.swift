import Foundation

/// A link's rules and variants (or a project's defaults for its links): checked once, evaluated per click from
/// memory. A visitor is given a variant first (by weight, the same one on every click); then the first rule whose
/// conditions hold puts its destinations on top.
public struct LinkRules: Codable, Hashable, Sendable {
    public var rules: [LinkRule]
    public var variants: [LinkVariant]

    public static let maximumRules = 50
    public static let maximumVariants = 20

    public init(rules: [LinkRule] = [], variants: [LinkVariant] = []) {
        self.rules = rules
        self.variants = variants
    }

    public var isEmpty: Bool { rules.isEmpty && variants.isEmpty }

    /// Whether a rule asks for the click's country, which only a server with a country source knows.
    public var usesCountries: Bool { rules.contains { $0.when.countries?.isEmpty == false } }

    enum CodingKeys: String, CodingKey { case rules, variants }

    /// Either list may be left out.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rules = try container.decodeIfPresent([LinkRule].self, forKey: .rules) ?? []
        variants = try container.decodeIfPresent([LinkVariant].self, forKey: .variants) ?? []
    }
}
