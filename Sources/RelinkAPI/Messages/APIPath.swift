/// The REST API's paths, named once for the server's routes, the client's requests and the codes no short link
/// may take.
public enum APIPath {
    /// The segment every API path starts with.
    public static let version = "v1"
    public static let shortLinks = "shortLinks"
    public static let links = "links"
    public static let linkStats = "linkStats"
    public static let deferredClicks = "deferredClicks"
    public static let installAttribution = "installAttribution"
    public static let reopenAttribution = "reopenAttribution"
    public static let openAPI = "openapi.json"
    public static let webhooks = "webhooks"

    /// `/v1/<name>`, as a client requests it.
    /// - Parameter name: one of the names above, or a path below `/v1` (`links/…`).
    /// - Returns: the absolute path.
    public static func absolute(_ name: String) -> String { "/\(version)/\(name)" }

    /// Whether a request path is under the API (`/v1` or below it), whichever host it was sent to.
    /// - Parameter path: the request's path, without its query.
    /// - Returns: true for `/v1` and `/v1/…`.
    public static func isAPI(_ path: Substring) -> Bool {
        // Every request on a link domain asks this: made once, not per call.
        path == root || path.hasPrefix(rootSlash)
    }

    private static let root = "/" + version
    private static let rootSlash = "/" + version + "/"

    /// The query that asks a short link or route for its debug page (FDL's `?d=1`).
    public static let debugQuery = "d=1"
}
