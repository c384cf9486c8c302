/// A readable link configured in routes.json: a path template mapped to a deep-link template and parameters,
/// so that `/p/42` works like a long link to `https://pictlink.com/product/42` without minting anything.
public struct PathRoute: Hashable, Sendable {
    public var path: PathTemplate
    /// The deep link, with `{name}` placeholders filled from the path.
    public var link: String
    /// Parameters for links on this route; values may use `{name}` placeholders too.
    public var parameters: LinkParameters

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(path: PathTemplate, link: String, parameters: LinkParameters = LinkParameters()) {
        self.path = path
        self.link = link
        self.parameters = parameters
    }
}
