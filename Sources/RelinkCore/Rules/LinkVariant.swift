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
}
