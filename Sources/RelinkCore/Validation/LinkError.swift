/// Why a long link can never redirect. Messages follow FDL's wording where FDL had one.
public struct LinkError: Error, Hashable, Sendable, Codable, CustomStringConvertible {
    public enum Code: String, CaseIterable, Sendable, Codable {
        /// The text is not a URL with a host and query, or a value has a broken percent-escape.
        case longLinkNotParsable = "LONG_LINK_NOT_PARSABLE"
        /// The same parameter appears twice, so which one counts would be a guess.
        case duplicateParam = "DUPLICATE_PARAM"
        case missingLink = "MISSING_LINK"
        case notURILink = "NOT_URI_LINK"
        case badURISchemeLink = "BAD_URI_SCHEME_LINK"
        /// `link` points back into a Relink link domain, so the click would loop.
        case linkIsDynamicLink = "LINK_IS_DYNAMIC_LINK"
        case linkLengthTooLong = "LINK_LENGTH_TOO_LONG"
    }

    public var code: Code
    /// The query key the error is about, when it is about one.
    public var parameter: String?
    public var message: String

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(_ code: Code, parameter: String? = nil, message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    public var description: String { message }
}
