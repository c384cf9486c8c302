extension LongLink {
    /// Parses a long link as FDL's builders and hand-written links spell it, and validates it.
    /// Never fails: what is wrong comes back as errors and warnings in the result.
    /// - Parameters:
    ///   - text: a whole long link, `https://go.example.com/?link=…`.
    ///   - context: the link domains and project to validate against.
    /// - Returns: the prefix, parameters, warnings and errors; a prefix of nil when the text is not a long link.
    public static func parse(_ text: String, context: LinkValidationContext = .init()) -> LongLinkParseResult {
        let trimmed = text.trimmingASCIIWhitespace()
        guard let uri = AbsoluteURI(String(trimmed)), uri.isHTTP, let host = uri.host,
            let prefix = try? DomainURIPrefix(
                "\(uri.scheme)://\(uri.port.map { "\(host):\($0)" } ?? host)\(uri.path)")
        else {
            var errors = [
                LinkError(
                    .longLinkNotParsable,
                    message: "Long link is not parsable: \(text.leadingScalars(200)) (expected https://<domain>/?link=<deep link>&…).")
            ]
            if let lengthError = lengthError(text.count) { errors.insert(lengthError, at: 0) }
            return LongLinkParseResult(prefix: nil, parameters: LinkParameters(), errors: errors)
        }
        var result = parse(query: Substring(uri.query ?? ""), prefix: prefix, context: context, length: text.count)
        if let fragment = uri.fragment {
            result.warnings.insert(
                LinkWarning(
                    .linkWithFragments, parameter: LinkParameter.link.name,
                    message:
                        "The long link ends in an unescaped '#\(fragment.leadingScalars(40))', which is not part of 'link'; encode '#' as %23 inside 'link' to keep it."
                ), at: 0)
        }
        return result
    }

    /// When a parse works out warnings: always (the CLI, the API), or only for `d=1`, the one response of a
    /// click that shows them.
    public enum WarningPolicy: Sendable {
        case always
        case whenDebugging
    }

    /// Parses and validates the query of a long link served under `prefix` (a request's query, say).
    /// `length` is the whole link's length, when known, for the 7,168-character limit.
    public static func parse(
        query: Substring, prefix: DomainURIPrefix, context: LinkValidationContext = .init(), length: Int? = nil,
        warningPolicy: WarningPolicy = .always
    ) -> LongLinkParseResult {
        var errors: [LinkError] = []
        if let lengthError = lengthError(length ?? (prefix.description.utf8.count + 2 + query.utf8.count)) {
            errors.append(lengthError)
        }
        let decoded = LinkQuery.decode(query)
        errors += decoded.errors
        let wantsWarnings = warningPolicy == .always || decoded.parameters.isDebug
        var warnings: [LinkWarning] = []
        if wantsWarnings {
            for name in decoded.unrecognized {
                warnings.append(
                    LinkWarning(
                        .unrecognizedParam, parameter: name,
                        message:
                            "'\(name)' is not a Dynamic Link parameter and is ignored. If it belongs to the deep link, percent-encode it inside 'link'."
                    ))
            }
            for name in decoded.deprecated {
                warnings.append(LinkWarning(.deprecatedParam, parameter: name, message: "'\(name)' is deprecated and ignored."))
            }
        }
        let validation = LinkValidator.validate(decoded.parameters, prefix: prefix, context: context, warnings: wantsWarnings)
        // A parameter whose value could not be decoded already has its error; "missing" would only repeat it.
        let undecodable = Set(decoded.errors.compactMap(\.parameter))
        return LongLinkParseResult(
            prefix: prefix, parameters: decoded.parameters,
            warnings: warnings + validation.warnings,
            errors: errors + validation.errors.filter { $0.parameter.map { !undecodable.contains($0) } ?? true })
    }

    /// The length error of a link given as parameters (the API's `dynamicLinkInfo`, an import's columns) rather than
    /// as text: its length with every value as given, unencoded, which no encoding of it undercuts, so a link FDL took
    /// is never refused, and a stored link's parameters stay within a few times the limit.
    /// - Parameters:
    ///   - parameters: the link's parameters.
    ///   - prefix: its domain URI prefix.
    /// - Returns: `LINK_LENGTH_TOO_LONG`, or nil when the link is within the limit.
    public static func lengthError(of parameters: LinkParameters, prefix: DomainURIPrefix) -> LinkError? {
        var length = prefix.description.unicodeScalars.count + 1
        for (parameter, value) in parameters.entries { length += 2 + parameter.name.unicodeScalars.count + value.unicodeScalars.count }
        return lengthError(length)
    }

    private static func lengthError(_ length: Int) -> LinkError? {
        guard length > maximumLength else { return nil }
        return LinkError(
            .linkLengthTooLong,
            message:
                "The long link is \(length) characters; the limit is \(maximumLength). Move data out of the link or mint a short link from fewer parameters."
        )
    }
}

extension StringProtocol where SubSequence == Substring {
    /// Without the spaces, tabs, CRs and LFs at either end, by byte: as `Character`s, a CR LF pair is one character
    /// that is none of them, and a value ending in one kept it.
    func trimmingASCIIWhitespace() -> SubSequence {
        let isSpace: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let whole = self[...]
        let bytes = whole.utf8
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        // Past the last byte kept is the end or a whitespace byte: a scalar boundary, as the first byte kept is.
        return whole[first..<bytes.index(after: last)]
    }
}
