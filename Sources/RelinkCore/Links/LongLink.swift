/// An FDL-style long link: a domain URI prefix plus parameters, `https://go.example.com/?link=…&apn=…`.
public struct LongLink: Hashable, Sendable {
    /// FDL's limit on a long link's length, as quoted on Google's debug pages.
    public static let maximumLength = 7168
    /// The longest value a parameter may have before it draws `TOO_LONG_PARAM`.
    public static let maximumParameterLength = 2048

    public var prefix: DomainURIPrefix
    public var parameters: LinkParameters

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(prefix: DomainURIPrefix, parameters: LinkParameters) {
        self.prefix = prefix
        self.parameters = parameters
    }

    /// The link as text: `<prefix>/?link=…`, each value percent-encoded.
    public var url: String {
        let query = LinkQuery.encode(parameters)
        return query.isEmpty ? prefix.url(path: "/") : prefix.url(path: "/?" + query)
    }
}
