/// Apple's `apple-app-site-association` file, in both the iOS 13+ form (`appIDs` + `components`) and the
/// iOS 9–12 form (`appID` + `paths`) side by side, one `details` entry per app.
public struct AppleAppSiteAssociation: Codable, Equatable, Sendable {
    public struct AppLinks: Codable, Equatable, Sendable {
        /// Must be present and empty for iOS 9–12.
        public var apps: [String] = []
        public var defaults: Defaults?
        public var details: [Detail]
    }

    public struct Defaults: Codable, Equatable, Sendable {
        public var caseSensitive: Bool
        public var percentEncoded: Bool
    }

    public struct Detail: Codable, Equatable, Sendable {
        public var appIDs: [String]
        public var components: [Component]
        /// The legacy form for iOS 9–12.
        public var appID: String
        public var paths: [String]
    }

    public struct Component: Codable, Equatable, Sendable {
        public var path: String
        public var exclude: Bool?
        public var comment: String?

        enum CodingKeys: String, CodingKey {
            case path = "/"
            case exclude, comment
        }
    }

    public struct AppList: Codable, Equatable, Sendable {
        public var apps: [String]
    }

    public var applinks: AppLinks
    public var webcredentials: AppList?
    public var appclips: AppList?

    /// The file for one host: every iOS app of `project` (and its separate iPad app) opens the paths under the
    /// project's prefixes on that host, except Relink's own pages under `/_/` and, for a domain at the host's root,
    /// what Relink serves there to browsers and clients (`RelinkPaths.servedAtRoot`: the console, the API…).
    public init(project: Project, prefixPaths: [String]) {
        var components: [Component] = []
        var paths: [String] = []
        for path in prefixPaths.sorted() {
            components.append(Component(path: "\(path)/_/*", exclude: true, comment: "Relink pages"))
            paths.append("NOT \(path)/_/*")
        }
        if prefixPaths.contains("") {
            for served in RelinkPaths.servedAtRoot {
                components.append(Component(path: served, exclude: true, comment: "Relink serves this to browsers"))
                components.append(Component(path: "\(served)/*", exclude: true, comment: "Relink serves this to browsers"))
                paths += ["NOT \(served)", "NOT \(served)/*"]
            }
        }
        for path in prefixPaths.sorted() {
            if !path.isEmpty {
                components.append(Component(path: path))
                paths.append(path)
            }
            components.append(Component(path: "\(path)/*"))
            paths.append("\(path)/*")
        }
        applinks = AppLinks(
            defaults: Defaults(caseSensitive: true, percentEncoded: true),
            details: Self.appIDs(of: project).map { Detail(appIDs: [$0], components: components, appID: $0, paths: paths) })
        let credentials = project.ios.filter(\.webCredentials).map(\.appID)
        webcredentials = credentials.isEmpty ? nil : AppList(apps: credentials)
        let clips = project.ios.compactMap { app in app.appClipBundleId.map { "\(app.teamId).\($0)" } }
        appclips = clips.isEmpty ? nil : AppList(apps: clips)
    }

    /// Every iOS app of `project`, and its separate iPad app, as `TEAMID.bundle.id`.
    static func appIDs(of project: Project) -> [String] {
        var appIDs: [String] = []
        for app in project.ios {
            appIDs.append(app.appID)
            if let iPad = app.iPadBundleId { appIDs.append("\(app.teamId).\(iPad)") }
        }
        return appIDs
    }
}
