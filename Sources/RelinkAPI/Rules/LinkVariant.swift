/// One destination of an A/B split: a share of a link's visitors (its weight over the sum of weights) gets its
/// destinations.
public struct LinkVariant: Codable, Hashable, Sendable {
    /// `a`, `spring-video`: 1–32 characters `A-Z a-z 0-9 - _`; stats are counted under it.
    public var name: String
    /// A whole number, 0–10,000; 0 takes the variant out without losing its stats.
    public var weight: Int
    public var destination: DestinationOverride

    public init(name: String, weight: Int, destination: DestinationOverride = DestinationOverride()) {
        self.name = name
        self.weight = weight
        self.destination = destination
    }

    enum CodingKeys: String, CodingKey { case name, weight, destination }

    /// `destination` may be left out: a variant that keeps the link's own destinations (the control group).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        weight = try container.decode(Int.self, forKey: .weight)
        destination = try container.decodeIfPresent(DestinationOverride.self, forKey: .destination) ?? DestinationOverride()
    }
}
