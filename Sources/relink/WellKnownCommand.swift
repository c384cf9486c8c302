import ArgumentParser
import Foundation
import RelinkCore

struct WellKnownCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "well-known",
        abstract: "Write or check the association files for hosting them statically.",
        discussion: """
            Writes <out>/<host>/.well-known/apple-app-site-association, <out>/<host>/apple-app-site-association and \
            <out>/<host>/.well-known/assetlinks.json for every host in the configuration, byte for byte what \
            `relink serve` answers, and removes such files of hosts no longer in it; no other file of the folder is \
            touched. --check writes nothing and exits 1 when the folder differs.
            """
    )

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @Option(help: "The folder to write into (or check).")
    var out: String = "well-known"

    @Flag(help: "Exit 1 if the folder differs from what the configuration generates; write nothing.")
    var check = false

    /// Every file the configuration generates, by path relative to the output folder.
    static func expectedFiles(_ configuration: RelinkConfiguration) -> [String: Data] {
        var files: [String: Data] = [:]
        for host in AssociationFiles.generate(for: configuration) {
            // `:` is not allowed in file names everywhere; hosts with ports use `_`.
            let folder = host.host.replacingOccurrences(of: ":", with: "_")
            files["\(folder)/.well-known/apple-app-site-association"] = host.appleAppSiteAssociation
            files["\(folder)/apple-app-site-association"] = host.appleAppSiteAssociation
            files["\(folder)/.well-known/assetlinks.json"] = host.assetLinks
        }
        return files
    }

    /// The association files' paths below a host's folder: the only files this command writes, removes or checks.
    static let associationPaths = [".well-known/apple-app-site-association", "apple-app-site-association", ".well-known/assetlinks.json"]

    /// The association files under `folder` (`<host>/<association path>`), by relative path; any other file is not
    /// the command's and is left out. One larger than `maximumFileSize` is not read: it reads as empty, and so
    /// differs from any generated file.
    static func existingFiles(in folder: URL) -> [String: Data] {
        // A host's folder is named like one (never `.well-known`, the site's own), and nothing on the way is a link:
        // a link would lead the command to read, replace or remove files outside the folder.
        let hosts = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter {
            !$0.hasPrefix(".") && !isLink(folder.appending(path: $0))
        }
        var files: [String: Data] = [:]
        for host in hosts where !isLink(folder.appending(path: "\(host)/.well-known")) {
            for path in associationPaths {
                let relative = "\(host)/\(path)"
                let url = folder.appending(path: relative)
                guard !isLink(url), let values = try? url.resourceValues(forKeys: [.isRegularFileKey, .fileSizeKey]), values.isRegularFile == true
                else { continue }
                files[relative] = (values.fileSize ?? 0) <= maximumFileSize ? (try? Data(contentsOf: url)) ?? Data() : Data()
            }
        }
        return files
    }

    /// Whether `url` is a symbolic link (not followed).
    static func isLink(_ url: URL) -> Bool {
        (try? FileManager.default.attributesOfItem(atPath: url.path)[.type] as? FileAttributeType) == .typeSymbolicLink
    }

    /// Larger than any association file Relink writes (one host's files are a few KB).
    static let maximumFileSize = 1 << 20

    /// The relative paths that are missing, different or unexpected.
    static func differences(expected: [String: Data], existing: [String: Data]) -> [String] {
        Set(expected.keys).union(existing.keys).sorted().compactMap { path in
            switch (expected[path], existing[path]) {
            case (nil, _): "unexpected: \(path)"
            case (_, nil): "missing: \(path)"
            case (let want?, let have?) where want != have: "differs: \(path)"
            default: nil
            }
        }
    }

    /// Foundation's error in words: its own text names no file and, on Linux, often only an error number.
    static func reason(_ error: any Error) -> String {
        let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
        if let underlying, underlying.domain == NSPOSIXErrorDomain, let text = strerror(Int32(underlying.code)) {
            return String(cString: text)
        }
        let path = (error as NSError).userInfo[NSFilePathErrorKey] as? String
        return error.localizedDescription + (path.map { " (\($0))" } ?? "")
    }

    func run() throws {
        let config = ConfigurationFile.path(config)
        let configuration = try ConfigurationFile.load(config)
        let folder = URL(fileURLWithPath: out)
        let expected = Self.expectedFiles(configuration)
        if check {
            let problems = Self.differences(expected: expected, existing: Self.existingFiles(in: folder))
            guard problems.isEmpty else {
                for problem in problems { Console.error("\(out): \(problem)") }
                throw CLIError(message: "\(out) is out of date with \(config); run `relink well-known --out \(out)`")
            }
            Console.print("\(out): up to date with \(config) (\(expected.count) files)")
            return
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: out, isDirectory: &isDirectory), !isDirectory.boolValue {
            throw CLIError(message: "cannot write \(out): it is a file, not a folder")
        }
        do {
            // The association files of hosts removed from the configuration go too, and their folders once empty.
            for path in Self.existingFiles(in: folder).keys where expected[path] == nil {
                let file = folder.appending(path: path)
                try FileManager.default.removeItem(at: file)
                for empty in [file.deletingLastPathComponent(), file.deletingLastPathComponent().deletingLastPathComponent()]
                where empty.standardizedFileURL.path.hasPrefix(folder.standardizedFileURL.path + "/")
                    && (try? FileManager.default.contentsOfDirectory(atPath: empty.path))?.isEmpty == true
                {
                    try FileManager.default.removeItem(at: empty)
                }
            }
            for (path, data) in expected.sorted(by: { $0.key < $1.key }) {
                let url = folder.appending(path: path)
                // Written in folders of the command's own, never through a link to another place; a link at the
                // file's own name is replaced (an atomic write renames over it), not followed.
                for parent in [url.deletingLastPathComponent(), folder.appending(path: String(path.prefix { $0 != "/" }))]
                where Self.isLink(parent) {
                    throw CLIError(message: "cannot write \(out): \(parent.path) is a symbolic link; remove it or choose another folder")
                }
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try data.write(to: url, options: .atomic)
            }
        } catch let error as CLIError {
            throw error
        } catch {
            throw CLIError(message: "cannot write \(out): \(Self.reason(error))")
        }
        Console.print("wrote \(expected.count) files for \(expected.count / 3) host(s) to \(out)")
    }
}
