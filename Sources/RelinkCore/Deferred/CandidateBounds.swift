/// How many clicks one fingerprint claim reads as candidates: the most recent in the window from the install's
/// address, and from its network. A claim's work is linear in these whatever an address's crowd (a carrier NAT, a
/// campus, an attacker's own network), and an address with more recent clicks than `perAddress` is crowded by
/// definition: its older clicks are not weighed (docs/attribution.md says what such a claim can still get).
public struct CandidateBounds: Hashable, Sendable {
    /// The most recent clicks read from the install's address.
    public var perAddress: Int
    /// The most recent clicks read from the install's network (its IPv4 /24 or IPv6 /64).
    public var perNetwork: Int

    /// Far above what a home or an office clicks in a window, so that only crowds reach them; the attribution
    /// simulation's figures are the same with them as without (docs/attribution.md).
    public static let `default` = CandidateBounds(perAddress: 200, perNetwork: 200)
    /// What a project may set each bound to.
    public static let allowed = 1...1_000

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(perAddress: Int, perNetwork: Int) {
        self.perAddress = perAddress
        self.perNetwork = perNetwork
    }
}
