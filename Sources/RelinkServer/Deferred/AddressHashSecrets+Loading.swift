import Foundation
import RelinkStore

extension AddressHashSecrets {
    /// Where releases before 0.3 kept the secret: in the database, beside the hashes it protects.
    public static let legacySettingKey = "address-hash-secret"

    /// Where the operator put the secrets; each nil when not given.
    public struct Locations: Sendable {
        /// The secret itself (`RELINK_SECRET`): wins over any file.
        public var secret: String?
        /// A secret file (`--secret-file`, `RELINK_SECRET_FILE`); else `SecretFile.defaultPath()`, created when absent.
        public var secretFile: String?
        /// The secret before a rotation (`RELINK_PREVIOUS_SECRET`).
        public var previousSecret: String?
        /// Its file (`--previous-secret-file`, `RELINK_PREVIOUS_SECRET_FILE`); else `<secret file>.previous` when it exists.
        public var previousSecretFile: String?

        public init(secret: String? = nil, secretFile: String? = nil, previousSecret: String? = nil, previousSecretFile: String? = nil) {
            func given(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
            self.secret = given(secret)
            self.secretFile = given(secretFile)
            self.previousSecret = given(previousSecret)
            self.previousSecretFile = given(previousSecretFile)
        }
    }

    /// Reads (or creates) the secrets, and moves a secret an older release kept in the database out of it: into
    /// a newly created secret file when there is one, else into this run's previous secrets, so that clicks
    /// hashed with it still match while they may be claimed. Either way it leaves the database.
    /// - Returns: the secrets, and what was done, for the log.
    public static func load(_ locations: Locations, store: any SettingsRepository) async throws -> (AddressHashSecrets, [String]) {
        var notes: [String] = []
        let legacy = try await store.setting(legacySettingKey)
        let current: String
        var file: String?
        if let secret = locations.secret {
            guard secret.count >= minimumLength else {
                throw SecretFile.Failure(description: "RELINK_SECRET must be at least \(minimumLength) characters")
            }
            current = secret
        } else {
            let path = locations.secretFile ?? SecretFile.defaultPath()
            let (secret, created) = try SecretFile.read(path, create: true, initialValue: legacy)
            current = secret
            file = path
            if created {
                notes.append(
                    legacy == nil
                        ? "created a new address-hashing secret in \(path) (mode 0600)"
                        : "moved the address-hashing secret out of the database into \(path) (mode 0600)")
            }
        }
        var previous: [String] = []
        if let secret = locations.previousSecret {
            previous.append(secret)
        }
        if let path = locations.previousSecretFile {
            previous.append(try SecretFile.read(path, create: false).secret)
        } else if let file, FileManager.default.fileExists(atPath: file + ".previous") {
            previous.append(try SecretFile.read(file + ".previous", create: false).secret)
            notes.append("clicks hashed with the previous secret in \(file).previous still match until they expire")
        }
        if let legacy {
            if legacy != current, !previous.contains(legacy) {
                previous.append(legacy)
                notes.append(
                    "removed the address-hashing secret from the database; it still matches clicks kept before while this process runs")
            }
            _ = try await store.removeSetting(legacySettingKey)
        }
        return (AddressHashSecrets(current: current, previous: previous), notes)
    }
}
