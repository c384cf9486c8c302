import Foundation

/// A file holding one secret, created with mode 0600 when absent (its folder 0700), refused when others may
/// read it.
public enum SecretFile {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `$XDG_CONFIG_HOME/relink/secret`, else `~/.config/relink/secret`: away from the database it protects.
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ((environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()) + "/.config")
        return base + "/relink/secret"
    }

    /// The secret in `path`; with `create`, a new random one is written there first when the file is absent.
    /// - Returns: the secret, and whether this call created the file.
    public static func read(_ path: String, create: Bool, initialValue: String? = nil) throws(Failure) -> (secret: String, created: Bool) {
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            guard create else { throw Failure(description: "the secret file \(path) does not exist") }
            let secret = initialValue ?? AddressHashSecrets.newSecret()
            let folder = (path as NSString).deletingLastPathComponent
            do {
                if !folder.isEmpty, !manager.fileExists(atPath: folder) {
                    try manager.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                }
                try write(secret + "\n", toNewFile: path)
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Failure(description: "cannot create the secret file \(path): \(error.localizedDescription)")
            }
            return (secret, true)
        }
        if let mode = (try? manager.attributesOfItem(atPath: path))?[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw Failure(
                description: "the secret file \(path) may be read by other users (mode \(String(mode & 0o777, radix: 8))); run chmod 600 \(path)")
        }
        guard let data = manager.contents(atPath: path) else { throw Failure(description: "cannot read the secret file \(path)") }
        guard let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            text.count >= AddressHashSecrets.minimumLength, !text.contains("\n")
        else {
            throw Failure(
                description: "the secret file \(path) must hold one line of at least \(AddressHashSecrets.minimumLength) characters")
        }
        return (text, false)
    }

    /// Creates `path` with mode 0600 from the start (`O_EXCL`: never over an existing file, never readable by
    /// others for a moment, as a write-then-chmod would be) and writes `text` to it.
    static func write(_ text: String, toNewFile path: String) throws(Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot create the secret file \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count, fsync(descriptor) == 0 else {
            throw Failure(description: "cannot write the secret file \(path): \(String(cString: strerror(errno)))")
        }
    }
}
