/// What validation knows beyond the link itself.
public struct LinkValidationContext: Sendable {
    /// Every Relink link domain: `link` must not point into one (the long link's own prefix always counts).
    public var linkDomains: [DomainURIPrefix]
    /// The project the link belongs to, for the `NOT_IN_PROJECT_*` and store-id checks.
    public var project: Project?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(linkDomains: [DomainURIPrefix] = [], project: Project? = nil) {
        self.linkDomains = linkDomains
        self.project = project
    }
}
