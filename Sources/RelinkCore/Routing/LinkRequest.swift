/// What a request on a link domain asks for, before any storage is consulted.
public enum LinkRequest: Sendable {
    /// `/?link=…`: a long link, parsed and validated.
    case longLink(ResolvedLink)
    /// A path that matches one of the project's routes.
    case route(ResolvedLink)
    /// `/<code>`: a short link to look up; `debug` when the query has `d=1`.
    case shortLink(ShortCode, debug: Bool)
    /// Nothing Relink serves.
    case notFound

    /// Works out what `relativePath` and `query` on `prefix` of `project` mean.
    /// - Parameters:
    ///   - project: the project the host and path belong to.
    ///   - prefix: the matching domain URI prefix.
    ///   - relativePath: the path below it.
    ///   - query: the request's query, without `?`.
    ///   - context: what links are validated against.
    /// - Returns: a long link or route (parsed and validated), a short code to look up, or not found.
    public static func resolve(
        project: Project, prefix: DomainURIPrefix, relativePath: Substring, query: Substring?,
        context: LinkValidationContext
    ) -> LinkRequest {
        if relativePath == "/" {
            guard let query, !query.isEmpty else { return .notFound }
            let parsed = LongLink.parse(query: query, prefix: prefix, context: context, warningPolicy: .whenDebugging)
            let url = prefix.url(path: "/?" + query)
            return .longLink(
                ResolvedLink(
                    kind: .longLink, url: url, ownParameters: parsed.parameters,
                    parameters: project.applyingDefaults(to: parsed.parameters, fillingApps: false),
                    warnings: parsed.warnings, errors: parsed.errors, isDebug: parsed.parameters.isDebug))
        }
        let debug = query.map(isDebugQuery) ?? false
        if let (route, captures) = matchingRoute(project: project, relativePath: relativePath) {
            var own = LinkParameters()
            own.link = substitute(route.link, captures, decode: false)
            for (parameter, value) in route.parameters.entries {
                own[parameter] = substitute(value, captures, decode: true)
            }
            let effective = project.applyingDefaults(to: own, fillingApps: true)
            let validation = LinkValidator.validate(effective, prefix: prefix, context: context, warnings: debug)
            return .route(
                ResolvedLink(
                    kind: .route(route.path.description), url: prefix.url(path: String(relativePath)), ownParameters: own,
                    parameters: effective, warnings: validation.warnings, errors: validation.errors, isDebug: debug))
        }
        let segment = relativePath.dropFirst()
        if let code = ShortCode(segment) { return .shortLink(code, debug: debug) }
        return .notFound
    }

    /// The first of the project's routes whose template matches `relativePath`, with its raw captures.
    static func matchingRoute(project: Project, relativePath: Substring) -> (PathRoute, [String: Substring])? {
        let segments = relativePath.utf8.reduce(0) { $0 + ($1 == UInt8(ascii: "/") ? 1 : 0) }
        for route in project.routes where route.path.segments.count == segments {
            if let captures = route.path.match(relativePath) { return (route, captures) }
        }
        return nil
    }

    /// Whether a short link's or route's query asks for the debug page; nothing else in it is read.
    static func isDebugQuery(_ query: Substring) -> Bool {
        query.split(separator: "&").contains { $0 == APIPath.debugQuery }
    }

    /// A template with `{name}` replaced in one pass (so a value that contains `{…}` is never expanded again):
    /// raw, still percent-encoded segments for URLs, decoded ones for text.
    static func substitute(_ template: String, _ captures: [String: Substring], decode: Bool) -> String {
        guard template.utf8.contains(UInt8(ascii: "{")) else { return template }
        var result = ""
        let utf8 = template.utf8
        var rest = utf8.startIndex
        // Byte offsets of `{` and `}`: ASCII, so slicing there never cuts a character.
        while let open = utf8[rest...].firstIndex(of: UInt8(ascii: "{")),
            let close = utf8[open...].firstIndex(of: UInt8(ascii: "}"))
        {
            result += template[rest..<open]
            if let raw = captures[String(template[utf8.index(after: open)..<close])] {
                result += decode ? (PercentEncoding.decode(raw, plusAsSpace: false) ?? String(raw)) : String(raw)
            } else {
                result += template[open...close]
            }
            rest = utf8.index(after: close)
        }
        return result + template[rest...]
    }
}
