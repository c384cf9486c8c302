import ArgumentParser
import Foundation
import RelinkCore
import RelinkServer
import RelinkStore
import RelinkTools

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

            With --url, asks a running deployment instead, over HTTP, following nothing: a redirect is its Location, a \
            page is its Open button or its link-preview tags. Each request goes to that address with the link's own host \
            in Host, so a deployment can be checked before DNS points at it. With a key of the project (--key or \
            $RELINK_API_KEY) the deployment does not count these clicks nor keep them for deferred linking.

            Examples:
              relink verify --project pictlink
              relink verify --project pictlink --url http://127.0.0.1:8080 --key "$RELINK_API_KEY"
            """
    )

    @Option(help: "The project, as in the configuration.")
    var project: String

    @Option(help: ConfigurationFile.optionHelp)
    var config: String?

    @OptionGroup var store: StoreOptions

    @Option(help: "A running deployment to ask over HTTP (scheme, host and port), instead of the planner.")
    var url: String?

    @Option(
        help:
            "With --url: a key of the project, so the deployment does not count the checks (default: $RELINK_API_KEY; spaces and line breaks around it are ignored)."
    )
    var key: String?

    @Flag(help: "With --url and no key: click as anybody would; every link's clicks and stats grow.")
    var countClicks = false

    @Option(help: "With --url: requests in flight at once.")
    var concurrency = 8

    func run() async throws {
        let probe = try makeProbe()
        let configuration: RelinkConfiguration
        let database: any RelinkStore
        do {
            (configuration, _, _) = try ConfigurationFile.project(project, path: config)
            database = try await store.open(creating: false)
        } catch {
            // An HTTP client dropped unshut is a fatal error in a debug build (`swift run relink`).
            try? await probe?.shutdown()
            throw error
        }
        defer { StoreOptions.close(database) }
        let verifier = LinkVerifier(configuration: configuration, store: database)
        let report: Result<LinkVerifier.Report, any Error>
        do {
            if let probe {
                report = .success(try await verifier.verify(projectId: project, concurrency: concurrency, answer: probe.answer))
            } else {
                report = .success(try await verifier.verify(projectId: project))
            }
        } catch {
            report = .failure(error)
        }
        try? await probe?.shutdown()
        guard case .success(let report) = report else {
            if case .failure(let error) = report { throw CLIError(message: "verification stopped: \(error)") }
            return
        }
        for line in Self.lines(report) { Console.print(line) }
        if report.differenceCount > 0 {
            throw CLIError(message: "\(report.differenceCount) difference(s) from Firebase Dynamic Links' behaviour")
        }
    }

    /// The deployment to ask, for --url; nil for the planner.
    func makeProbe() throws(CLIError) -> DeploymentProbe? {
        guard let url else {
            if key != nil || countClicks { throw CLIError.usage("--key and --count-clicks go with --url") }
            return nil
        }
        let key = try ClientOptions.apiKey(key, environment: ProcessInfo.processInfo.environment)
        guard (1...256).contains(concurrency) else { throw CLIError.usage("--concurrency must be 1 to 256, got \(concurrency)") }
        if key != nil, countClicks { throw CLIError.usage("--count-clicks and a key exclude each other") }
        let apiKey = key
        guard apiKey != nil || countClicks else {
            throw CLIError.usage(
                "--url needs a key of the project (--key or $RELINK_API_KEY) so the deployment does not count the checks; "
                    + "--count-clicks to click as anybody would")
        }
        do {
            return try DeploymentProbe(url: url, apiKey: apiKey)
        } catch {
            throw CLIError.usage(error.description)
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
        // Why, by project setting: a team starting from the sample routes.json sees its defaults here, not bugs.
        // Single settings first, in their order, then pairs; what no setting explains last.
        let order = LinkVerifier.Cause.allCases
        let rank = { (causes: [LinkVerifier.Cause]) -> [Int] in
            causes.isEmpty ? [Int.max] : [causes.count] + causes.map { order.firstIndex(of: $0) ?? 0 }
        }
        for (causes, count) in report.causes.sorted(by: { rank($0.key).lexicographicallyPrecedes(rank($1.key)) }) {
            if causes.isEmpty {
                lines.append("  \(count) from the links themselves or Relink's own behaviour")
            } else {
                let names = causes.map(\.rawValue).joined(separator: " together with ")
                lines.append("  \(count) from \(names) in routes.json: " + causes.map(\.explanation).joined(separator: "; "))
            }
        }
        return lines
    }
}
