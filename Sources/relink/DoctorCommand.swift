import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer
import RelinkTools

/// `relink doctor --project ID`: the app side of a project's links, checked.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check the app side of a project's links: iOS entitlements, the Android manifest, and the association files a deployment serves.",
        discussion: """
            Prints a checklist, one fix line under each failure, and exits 1 when anything fails (warnings do not).

            Examples:
              relink doctor --project pictlink --entitlements ios/App/App.entitlements --manifest android/app/src/main/AndroidManifest.xml
              relink doctor --project pictlink --url https://go.pictlink.com
              relink doctor --project pictlink --url http://127.0.0.1:8080 --json
              relink doctor --project pictlink --domains
              relink doctor --project pictlink --url https://go.pictlink.com --tracking-url 'https://click.pictlink.com/uni/ls/click?upn=…'
            """
    )

    @Option(help: "The project, as in the configuration.")
    var project: String

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @Option(help: "The iOS app's .entitlements file (an XML property list).")
    var entitlements: String?

    @Option(help: "The Android app's AndroidManifest.xml.")
    var manifest: String?

    @Option(help: "A running deployment (scheme, host and port) to fetch every project host's association files from.")
    var url: String?

    @Flag(help: "Fetch every project host's association files from the host itself (after the DNS switch).")
    var domains = false

    @Option(
        name: .customLong("tracking-url"),
        help: ArgumentHelp(
            "A link of a sent email, rewritten by the email service to its tracking domain: checked to open the apps and to reach a link of the project (repeatable).",
            discussion: "Asked from --url when given, else from its own host; the email service counts it as a click."))
    var trackingURLs: [String] = []

    @Flag(help: "Print the checks as JSON.")
    var json = false

    func run() async throws {
        guard entitlements != nil || manifest != nil || url != nil || domains || !trackingURLs.isEmpty else {
            throw CLIError.usage("give at least one of --entitlements, --manifest, --url, --domains and --tracking-url")
        }
        if let url, let problem = AppDoctor.deploymentURLProblem(url) { throw CLIError.usage(problem) }
        let (configuration, _, _) = try ConfigurationFile.project(project, path: config)
        guard let project = configuration.project(id: project) else { throw CLIError.usage("no project '\(self.project)'") }
        var checks: [AppDoctor.Check] = []
        if let entitlements {
            checks += AppDoctor.entitlements(try Self.read(entitlements), file: entitlements, project: project)
        }
        if let manifest {
            checks += AppDoctor.manifest(try Self.read(manifest), file: manifest, project: project)
        }
        if let url {
            checks += await AppDoctor.deployment(url, project: project)
        }
        if domains {
            checks += await AppDoctor.domains(of: project)
        }
        for sample in trackingURLs {
            checks += await AppDoctor.trackingURL(sample, project: project, deployment: url)
        }
        if json {
            Console.print(try Console.json(checks))
        } else {
            for line in Self.lines(checks) { Console.print(line) }
        }
        let failures = checks.filter { $0.status == .fail }.count
        if failures > 0 { throw CLIError(message: "\(failures) check(s) failed") }
    }

    /// A file's bytes, at most 4 MB (a manifest or an entitlements file is a few KB).
    static func read(_ path: String) throws(CLIError) -> Data {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw CLIError.usage("'\(path)' is a directory: name the file itself")
        }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.usage("cannot read '\(path)'") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: 4 << 20 + 1)) ?? Data()
        guard data.count <= 4 << 20 else { throw CLIError.usage("'\(path)' is larger than 4 MB; is it the right file?") }
        return data
    }

    static func lines(_ checks: [AppDoctor.Check]) -> [String] {
        var lines: [String] = []
        for check in checks {
            let mark =
                switch check.status {
                case .pass: "✓"
                case .warning: "⚠"
                case .fail: "✗"
                }
            lines.append("\(mark) \(check.subject): \(check.message)" + (check.fix.map { " — \($0)" } ?? ""))
        }
        let failed = checks.filter { $0.status == .fail }.count
        let warned = checks.filter { $0.status == .warning }.count
        lines.append("\(checks.count) check(s): \(checks.count - failed - warned) passed, \(warned) warning(s), \(failed) failed")
        return lines
    }
}
