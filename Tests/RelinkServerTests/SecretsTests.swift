import Foundation
import RelinkServer
import RelinkStore
import Testing

/// The address-hashing secret lives apart from the database, in files only its user can read.
@Suite("Secrets and files")
struct SecretsTests {
    static func folder() throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "relink-secrets-\(UUID())").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    static func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test func aSecretFileIsCreated0600AndReadBack() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/config/relink/secret"
        let (secret, created) = try SecretFile.read(path, create: true)
        #expect(created)
        #expect(secret.count >= 40)
        #expect(try Self.mode(path) == 0o600)
        #expect(try Self.mode(folder + "/config/relink") == 0o700)
        let again = try SecretFile.read(path, create: true)
        #expect(again.secret == secret)
        #expect(!again.created)
    }

    @Test func unsafeOrBadSecretFilesAreRefusedWithTheReason() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let open = folder + "/open"
        _ = FileManager.default.createFile(atPath: open, contents: Data("a long enough secret value".utf8), attributes: [.posixPermissions: 0o644])
        #expect(throws: SecretFile.Failure.self) { try SecretFile.read(open, create: false) }
        #expect((try? SecretFile.read(open, create: false)) == nil)
        do {
            _ = try SecretFile.read(open, create: false)
        } catch {
            #expect(error.description.contains("chmod 600"))
        }
        let short = folder + "/short"
        _ = FileManager.default.createFile(atPath: short, contents: Data("short".utf8), attributes: [.posixPermissions: 0o600])
        #expect(throws: SecretFile.Failure.self) { try SecretFile.read(short, create: false) }
        #expect(throws: SecretFile.Failure.self) { try SecretFile.read(folder + "/missing", create: false) }
    }

    /// An older release's secret leaves the database: into the new secret file, so matching goes on unchanged.
    @Test func aSecretInTheDatabaseMovesIntoTheNewSecretFile() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteStore()
        _ = try await store.settingInsertingIfAbsent(AddressHashSecrets.legacySettingKey, value: "the secret the database kept")
        let (secrets, notes) = try await AddressHashSecrets.load(.init(secretFile: folder + "/secret"), store: store)
        #expect(secrets == AddressHashSecrets(current: "the secret the database kept"))
        #expect(notes.contains { $0.contains("moved the address-hashing secret out of the database") })
        #expect(try await store.setting(AddressHashSecrets.legacySettingKey) == nil)
        #expect(try Self.mode(folder + "/secret") == 0o600)
        // Next start: read from the file.
        let (next, _) = try await AddressHashSecrets.load(.init(secretFile: folder + "/secret"), store: store)
        #expect(next == secrets)
    }

    /// With RELINK_SECRET set, the database's old secret is a previous one, and leaves the database too.
    @Test func aConfiguredSecretKeepsTheDatabasesOldOneAsPrevious() async throws {
        let store = try SQLiteStore()
        _ = try await store.settingInsertingIfAbsent(AddressHashSecrets.legacySettingKey, value: "the secret the database kept")
        let (secrets, _) = try await AddressHashSecrets.load(.init(secret: "an operator's secret value"), store: store)
        #expect(secrets == AddressHashSecrets(current: "an operator's secret value", previous: ["the secret the database kept"]))
        #expect(try await store.setting(AddressHashSecrets.legacySettingKey) == nil)
        await #expect(throws: SecretFile.Failure.self) { try await AddressHashSecrets.load(.init(secret: "short"), store: store) }
    }

    /// Rotation: the old file renamed `<secret file>.previous` still matches; a new secret is made.
    @Test func aPreviousSecretFileBesideTheSecretFileIsUsed() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try SQLiteStore()
        let (first, _) = try await AddressHashSecrets.load(.init(secretFile: folder + "/secret"), store: store)
        try FileManager.default.moveItem(atPath: folder + "/secret", toPath: folder + "/secret.previous")
        let (rotated, notes) = try await AddressHashSecrets.load(.init(secretFile: folder + "/secret"), store: store)
        #expect(rotated.previous == [first.current])
        #expect(rotated.current != first.current)
        #expect(notes.contains { $0.contains("secret.previous") })
    }

    @Test func theSQLiteDatabaseAndItsWALAreCreated0600() async throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/relink.sqlite"
        let store = try SQLiteStore(path: path)
        _ = try await store.settingInsertingIfAbsent("k", value: "v")
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            #expect(try Self.mode(path + suffix) == 0o600, "\(suffix)")
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
    }
}
