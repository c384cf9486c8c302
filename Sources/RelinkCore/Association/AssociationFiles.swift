import Foundation

/// The association files of one host, as served and as written to `well-known/`.
public struct AssociationFiles: Sendable, Equatable {
    /// Apple's limit on an uncompressed `apple-app-site-association`.
    public static let appleSizeLimit = 128 * 1024

    /// `host` or `host:port`.
    public var host: String
    public var projectId: String
    public var appleAppSiteAssociation: Data
    public var assetLinks: Data

    /// One entry per host of the configuration, sorted by host.
    /// - Parameter configuration: routes.json, loaded.
    /// - Returns: each host's `apple-app-site-association` and `assetlinks.json`, as served.
    public static func generate(for configuration: RelinkConfiguration) -> [AssociationFiles] {
        var result: [AssociationFiles] = []
        for project in configuration.projects {
            let byHost = Dictionary(grouping: project.domains, by: \.hostAndPort)
            for (host, prefixes) in byHost {
                result.append(
                    AssociationFiles(
                        host: host, projectId: project.id,
                        appleAppSiteAssociation: encode(AppleAppSiteAssociation(project: project, prefixPaths: prefixes.map(\.path))),
                        assetLinks: encode(project.android.map(AssetLinkStatement.init))))
            }
            // An email service's tracking domain: the project's apps, for the tracking paths only (Android's App
            // Links take their paths from the app's manifest; the statement is the same).
            for tracking in project.clickTracking {
                result.append(
                    AssociationFiles(
                        host: tracking.host, projectId: project.id,
                        appleAppSiteAssociation: encode(AppleAppSiteAssociation(project: project, trackingPaths: tracking.paths)),
                        assetLinks: encode(project.android.map(AssetLinkStatement.init))))
            }
        }
        return result.sorted { $0.host < $1.host }
    }

    /// Stable bytes: sorted keys, so that the files only change when the configuration does.
    static func encode(_ value: some Encodable) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and booleans cannot fail.
        return (try? encoder.encode(value)).map { $0 + Data("\n".utf8) } ?? Data()
    }
}
