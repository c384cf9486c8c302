import ArgumentParser
import RelinkCore

struct ParseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parse",
        abstract: "Show a long link's parameters, warnings and errors.",
        discussion: "Exits 0 for a valid link (warnings allowed), 1 for a link that cannot redirect, 2 for a usage error."
    )

    @Argument(help: "The long link, such as 'https://go.pictlink.com/?link=…'. Quote it in the shell.")
    var url: String

    @Flag(help: "Print JSON instead of a table.")
    var json = false

    @Option(help: "Check the link against this routes.json's project for its domain (apps, store IDs).")
    var config: String?

    func run() throws {
        var result = LongLink.parse(url)
        if config != nil, let prefix = result.prefix {
            result = LongLink.parse(url, context: try Self.context(configPath: config, prefix: prefix))
        }
        let report = LinkReport(result)
        Console.print(json ? try Console.json(report) : report.text)
        if !result.isValid { throw ExitCode(CLIError.failureExitCode) }
    }

    /// With a configuration, the project that owns `prefix` and every link domain; without, nothing.
    static func context(configPath: String?, prefix: DomainURIPrefix) throws(CLIError) -> LinkValidationContext {
        guard let configPath else { return LinkValidationContext() }
        let configuration = try ConfigurationFile.load(configPath)
        guard let project = configuration.projects.first(where: { $0.domains.contains(prefix) }) else {
            throw CLIError(message: "no project in \(configPath) has the domain \(prefix)")
        }
        return LinkValidationContext(linkDomains: configuration.allDomains, project: project)
    }
}
