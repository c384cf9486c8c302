/// One statement of `assetlinks.json`: this Android package may handle all URLs of the host.
public struct AssetLinkStatement: Codable, Equatable, Sendable {
    public struct Target: Codable, Equatable, Sendable {
        public var namespace: String
        public var packageName: String
        public var sha256CertFingerprints: [String]

        enum CodingKeys: String, CodingKey {
            case namespace
            case packageName = "package_name"
            case sha256CertFingerprints = "sha256_cert_fingerprints"
        }
    }

    public var relation: [String]
    public var target: Target

    /// The statement that lets `app` open the domain's links (App Links).
    /// - Parameter app: an Android app of the project.
    public init(app: AndroidApp) {
        relation = ["delegate_permission/common.handle_all_urls"]
        target = Target(namespace: "android_app", packageName: app.packageName, sha256CertFingerprints: app.sha256CertFingerprints)
    }
}
