/// The query-string codec of long links: parameters to `link=…&apn=…` and back.
public enum LinkQuery {
    /// Query keys FDL added to universal-link opens, and Relink's own markers (`rc`, the click id of a claim
    /// link); ignored without a warning.
    static func isSilentlyIgnored(_ name: Substring) -> Bool {
        name.hasPrefix("_") || name == "cid" || name == "rc"
    }

    /// `link=…&apn=…` in builder order, every value percent-encoded.
    /// - Parameter parameters: the parameters to write.
    /// - Returns: the query, in FDL's parameter order, values percent-encoded.
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
    /// - Parameter query: a long link's query, without `?`.
    /// - Returns: the parameters, and what was unknown, repeated or not decodable.
    public static func decode(_ query: Substring) -> Decoded {
        var decoded = Decoded()
        let utf8 = query.utf8
        var pairStart = utf8.startIndex
        while pairStart < utf8.endIndex {
            // Split on bytes: `&` and `=` are ASCII, so this never cuts a character, and it is much cheaper than
            // splitting by Character.
            let pairEnd = utf8[pairStart...].firstIndex(of: UInt8(ascii: "&")) ?? utf8.endIndex
            defer { pairStart = pairEnd == utf8.endIndex ? pairEnd : utf8.index(after: pairEnd) }
            if pairStart == pairEnd { continue }
            let equals = utf8[pairStart..<pairEnd].firstIndex(of: UInt8(ascii: "="))
            let rawName = query[pairStart..<(equals ?? pairEnd)]
            let rawValue = equals.map { query[utf8.index(after: $0)..<pairEnd] } ?? ""
            add(rawName, rawValue, to: &decoded)
        }
        return decoded
    }

    private static func add(_ rawName: Substring, _ rawValue: Substring, to decoded: inout Decoded) {
        guard let name = PercentEncoding.decode(rawName) else {
            decoded.errors.append(
                LinkError(.longLinkNotParsable, message: "The parameter name '\(rawName)' has a broken percent-escape."))
            return
        }
        guard let parameter = LinkParameter(name: name) else {
            if isSilentlyIgnored(Substring(name)) { return }
            if name == "gclid" {
                decoded.deprecated.append(name)
            } else if !decoded.unrecognized.contains(name) {
                decoded.unrecognized.append(name)
            }
            return
        }
        guard let value = PercentEncoding.decode(rawValue) else {
            decoded.errors.append(
                LinkError(
                    .longLinkNotParsable, parameter: name,
                    message:
                        "The value of '\(name)' has a broken percent-escape (a '%' not followed by two hex digits, or bytes that are not UTF-8): '\(rawValue.leadingScalars(80))'."
                ))
            return
        }
        if decoded.parameters[parameter] != nil {
            decoded.errors.append(
                LinkError(
                    .duplicateParam, parameter: name,
                    message: "The parameter '\(name)' appears more than once, so which value counts would be a guess; keep one."))
            return
        }
        decoded.parameters[parameter] = value
    }
}
