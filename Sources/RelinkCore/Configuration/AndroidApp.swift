/// An Android app of a project, as listed in routes.json.
public struct AndroidApp: Hashable, Sendable {
    public var name: String?
    public var packageName: String
    /// SHA-256 fingerprints of every signing certificate (upload key and Play App Signing), uppercase `AA:BB:…`.
    public var sha256CertFingerprints: [String]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(name: String? = nil, packageName: String, sha256CertFingerprints: [String]) {
        self.name = name
        self.packageName = packageName
        self.sha256CertFingerprints = sha256CertFingerprints
    }
}
