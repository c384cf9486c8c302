/// The paths Relink serves itself, on any host, and so the codes no link and the paths no configured route may take:
/// the server registers its routes with these names, and minting, the console's checks, the importer, the request
/// counter and the configuration's route check read the same list.
public enum RelinkPaths {
    /// `GET /healthz`.
    public static let health = "/healthz"
    /// `GET /metrics`, on the main port when `--metrics-token` is set.
    public static let metrics = "/metrics"
    /// The console's pages, on the main port unless it has a listener of its own.
    public static let console = "/console"
    /// Everything below `/.well-known/` (the association files).
    public static let wellKnown = "/.well-known/"
    /// Apple's older place for the association file.
    public static let appleAppSiteAssociation = "/apple-app-site-association"
    /// Apple's association file where it looks first.
    public static let wellKnownAppleAppSiteAssociation = wellKnown + "apple-app-site-association"
    /// Android's association file.
    public static let assetLinks = wellKnown + "assetlinks.json"
    /// Where the association files are served.
    public static let associationFiles = [wellKnownAppleAppSiteAssociation, appleAppSiteAssociation, assetLinks]
    /// Relink's own paths below a domain's prefix (`/_/beacon`).
    public static let internalPrefix = "/_/"

    /// What Relink serves at a host's root to browsers and clients rather than to an app: the console, the API,
    /// the probes and the association files. An association file of a domain at the root leaves them out, or a tap
    /// on a console link on a phone with the app would open the app.
    public static let servedAtRoot: [String] = [
        console, APIPath.absolute(""), health, metrics, wellKnown, appleAppSiteAssociation,
    ].map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }

    /// The first segments of every path above and of the API (`/v1`), and the probe and description names that
    /// orchestrators and API clients ask for by convention (`readyz`, `livez`, `openapi`). Reserved on every server
    /// whatever its options (metrics token, console port): a link moves between servers with its code, and a code
    /// that one server serves itself would be shadowed there.
    public static let reservedCodes: Set<String> = {
        let served = [health, metrics, console, wellKnown, appleAppSiteAssociation, internalPrefix, APIPath.absolute("")]
        return Set(served.compactMap { $0.split(separator: "/").first.map(String.init) }).union(["readyz", "livez", "openapi"])
    }()

    /// Whether `path` names `expected` as the router reads paths, skipping empty segments (`//healthz`, `/healthz/`),
    /// compared byte for byte.
    /// - Parameters:
    ///   - path: a request's path.
    ///   - expected: one of the paths above.
    /// - Returns: true when the router takes the one for the other.
    public static func names(_ path: Substring, _ expected: String) -> Bool {
        let (path, expected) = (path.utf8, expected.utf8)
        let slash = UInt8(ascii: "/")
        var (p, e) = (path.startIndex, expected.startIndex)
        while true {
            while p < path.endIndex, path[p] == slash { p = path.index(after: p) }
            while e < expected.endIndex, expected[e] == slash { e = expected.index(after: e) }
            if p == path.endIndex || e == expected.endIndex { return p == path.endIndex && e == expected.endIndex }
            while p < path.endIndex, e < expected.endIndex, path[p] != slash, expected[e] != slash {
                guard path[p] == expected[e] else { return false }
                (p, e) = (path.index(after: p), expected.index(after: e))
            }
            guard p == path.endIndex || path[p] == slash, e == expected.endIndex || expected[e] == slash else { return false }
        }
    }

    /// Whether the router takes `path` for the console's (`/console`, `/console/…`, also after empty segments).
    /// - Parameter path: a request's path.
    /// - Returns: true when its first non-empty segment is `console`.
    public static func isConsole(_ path: Substring) -> Bool {
        let bytes = path.utf8
        guard let start = bytes.firstIndex(where: { $0 != UInt8(ascii: "/") }) else { return false }
        let segment = bytes[start...].prefix { $0 != UInt8(ascii: "/") }
        return segment.elementsEqual(console.utf8.dropFirst())
    }

    /// Whether `code` is one of `reservedCodes`, or a single-segment route of `project` (a code there would never be
    /// reached either).
    public static func isReserved(_ code: String, project: Project) -> Bool {
        if reservedCodes.contains(code) { return true }
        return project.routes.contains { $0.path.segments == [.literal(code)] }
    }
}
