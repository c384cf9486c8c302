import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer

/// `relink verify --project ID`: where FDL sent an iPhone, an iPad, an Android phone, a desktop browser and a crawler
/// for each of the project's links, next to what Relink does.
struct VerifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Check that every link of a project sends each kind of client where Firebase Dynamic Links did.",
        discussion: """
            For each stored short link of the project, works out from its parameters, by FDL's rules, where an iPhone, \
            an iPad, an Android phone, a desktop browser and a link-preview crawler went, and compares with Relink's \
            planner. Prints every difference and exits 1 when there is one.

            Example:
              relink verify --project pictlink
            """
    )

    @Option(help: "The project, as in the configuration.")
    var project: String

    @Option(help: "The configuration (default: $RELINK_CONFIG, else routes.json).")
    var config: String?

    @OptionGroup var store: StoreOptions

    func run() async throws {
        let (configuration, _, _) = try ConfigurationFile.project(project, path: config)
        let database = try await store.open()
        defer { StoreOptions.close(database) }
        let report: LinkVerifier.Report
        do {
            report = try await LinkVerifier(configuration: configuration, store: database).verify(projectId: project)
        } catch {
            throw CLIError(message: "verification stopped: \(error)")
        }
        for line in Self.lines(report) { Console.print(line) }
        if report.differenceCount > 0 {
            throw CLIError(message: "\(report.differenceCount) difference(s) from Firebase Dynamic Links' behaviour")
        }
    }

    static func lines(_ report: LinkVerifier.Report) -> [String] {
        var lines: [String] = []
        if !report.differences.isEmpty {
            var rows = [["SHORT LINK", "CLIENT", "FIREBASE", "RELINK"]]
            rows += report.differences.map { [$0.shortLink, $0.client.rawValue, $0.firebase.description, $0.relink.description] }
            lines.append(Console.table(rows))
            if report.differences.count < report.differenceCount {
                lines.append("… and \(report.differenceCount - report.differences.count) more")
            }
        }
        lines.append("\(report.links) link(s), \(report.checks) check(s): \(report.differenceCount) difference(s)")
        return lines
    }
}
