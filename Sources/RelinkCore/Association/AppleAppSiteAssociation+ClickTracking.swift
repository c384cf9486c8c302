extension AppleAppSiteAssociation {
    /// The file of an email service's tracking domain: every iOS app of `project` (and its iPad app) opens the
    /// tracking paths there, and nothing else (the domain's other pages, the service's own, stay in the browser).
    public init(project: Project, trackingPaths: [String]) {
        let components = trackingPaths.map { Component(path: $0, comment: "email click tracking") }
        applinks = AppLinks(
            defaults: Defaults(caseSensitive: true, percentEncoded: true),
            details: Self.appIDs(of: project).map { Detail(appIDs: [$0], components: components, appID: $0, paths: trackingPaths) })
        webcredentials = nil
        appclips = nil
    }
}
