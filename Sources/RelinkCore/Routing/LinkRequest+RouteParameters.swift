extension LinkRequest {
    /// A route's path parameters for an app (`/p/a%20b` on `/p/{id}` gives `id` = `a b`): decoded, as the route's
    /// parameters take them. Asked by re-opens and resolves only, so clicks never build this dictionary.
    /// - Parameters:
    ///   - project: the project whose routes are tried, in order, as a click tries them.
    ///   - relativePath: the path below the domain URI prefix.
    /// - Returns: the first matching route's parameters, or nil when no route matches.
    public static func routeParameters(project: Project, relativePath: Substring) -> [String: String]? {
        matchingRoute(project: project, relativePath: relativePath)?.1.mapValues {
            PercentEncoding.decode($0, plusAsSpace: false) ?? String($0)
        }
    }
}
