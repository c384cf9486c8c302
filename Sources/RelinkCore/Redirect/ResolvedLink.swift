/// A link a click refers to, ready for the redirect planner: the project's defaults already applied.
public struct ResolvedLink: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case longLink
        /// A configured route, by its path template.
        case route(String)
        /// A stored short link, by its code.
        case shortLink(String)
    }

    public var kind: Kind
    /// The link as clicked (without `d=1` for short links and routes).
    public var url: String
    /// The parameters the link itself carries, before the project's defaults.
    public var ownParameters: LinkParameters
    /// What the planner uses: the link's parameters with the project's defaults filled in.
    public var parameters: LinkParameters
    public var warnings: [LinkWarning]
    public var errors: [LinkError]
    /// `d=1`: show the debug page.
    public var isDebug: Bool

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        kind: Kind, url: String, ownParameters: LinkParameters, parameters: LinkParameters, warnings: [LinkWarning] = [],
        errors: [LinkError] = [], isDebug: Bool = false
    ) {
        self.kind = kind
        self.url = url
        self.ownParameters = ownParameters
        self.parameters = parameters
        self.warnings = warnings
        self.errors = errors
        self.isDebug = isDebug
    }
}
