/// What parsing a long link found: its prefix and parameters, and every warning and error.
public struct LongLinkParseResult: Sendable {
    /// The domain URI prefix, when the text was a URL at all.
    public var prefix: DomainURIPrefix?
    public var parameters: LinkParameters
    public var warnings: [LinkWarning]
    public var errors: [LinkError]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        prefix: DomainURIPrefix?, parameters: LinkParameters, warnings: [LinkWarning] = [], errors: [LinkError] = []
    ) {
        self.prefix = prefix
        self.parameters = parameters
        self.warnings = warnings
        self.errors = errors
    }

    /// True when the link can redirect: no errors (warnings allowed).
    public var isValid: Bool { errors.isEmpty }

    /// The link, when it is valid.
    public var longLink: LongLink? {
        guard isValid, let prefix else { return nil }
        return LongLink(prefix: prefix, parameters: parameters)
    }
}
