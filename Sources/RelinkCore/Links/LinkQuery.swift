/// The query-string codec of long links: parameters to `link=…&apn=…` and back.
public enum LinkQuery {
    /// Query keys FDL added to universal-link opens, and Relink's own markers; ignored without a warning.
    static func isSilentlyIgnored(_ name: Substring) -> Bool {
        name.hasPrefix("_") || name == "cid"
    }

    /// `link=…&apn=…` in builder order, every value percent-encoded.
    public static func encode(_ parameters: LinkParameters) -> String {
        parameters.entries
            .map { "\($0.parameter.name)=\(PercentEncoding.encodeQueryValue($0.value))" }
            .joined(separator: "&")
    }

    /// What a query string decodes to: the parameters, plus what was not a parameter.
    public struct Decoded: Sendable {
        public var parameters = LinkParameters()
        /// Keys that are not link parameters, in the order they appeared (`_`-prefixed keys and `cid` excluded).
        public var unrecognized: [String] = []
        /// Deprecated keys that were ignored (`gclid`).
        public var deprecated: [String] = []
        public var errors: [LinkError] = []
    }

    /// Decodes a raw query (without the `?`). Accepts any valid percent-encoding and `+` for a space.
    /// A broken escape or a repeated parameter is an error, since what the link meant would be a guess.
    public static func decode(_ query: Substring) -> Decoded {
        var decoded = Decoded()
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: "=")
            let rawName = pair[..<(equals ?? pair.endIndex)]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? ""
            guard let name = PercentEncoding.decode(rawName) else {
                decoded.errors.append(
                    LinkError(.longLinkNotParsable, message: "The parameter name '\(rawName)' has a broken percent-escape."))
                continue
            }
            guard let parameter = LinkParameter(name: name) else {
                if isSilentlyIgnored(Substring(name)) { continue }
                if name == "gclid" {
                    decoded.deprecated.append(name)
                } else if !decoded.unrecognized.contains(name) {
                    decoded.unrecognized.append(name)
                }
                continue
            }
            guard let value = PercentEncoding.decode(rawValue) else {
                decoded.errors.append(
                    LinkError(
                        .longLinkNotParsable, parameter: name,
                        message: "The value of '\(name)' has a broken percent-escape (a '%' not followed by two hex digits, or bytes that are not UTF-8): '\(rawValue.prefix(80))'."
                    ))
                continue
            }
            if decoded.parameters[parameter] != nil {
                decoded.errors.append(
                    LinkError(
                        .duplicateParam, parameter: name,
                        message: "The parameter '\(name)' appears more than once, so which value counts would be a guess; keep one."))
                continue
            }
            decoded.parameters[parameter] = value
        }
        return decoded
    }
}
