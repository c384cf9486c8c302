import ArgumentParser
import RelinkCore

struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with routes.json, the project configuration.",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a configuration: one line per problem, exit 1 when there is any."
        )

        @Argument(help: "The configuration file (default: $RELINK_CONFIG, else routes.json).")
        var file: String?

        func run() throws {
            let file = ConfigurationFile.path(file)
            let configuration = try ConfigurationFile.load(file)
            Console.print("\(file): valid, \(configuration.projects.count) project(s)")
            for project in configuration.projects {
                let summary = [
                    "\(project.domains.count) domain(s)", "\(project.ios.count) iOS app(s)",
                    "\(project.android.count) Android app(s)", "\(project.routes.count) route(s)",
                    "\(project.allowlist.patterns.count) allowlist pattern(s)",
                ]
                Console.print("  \(project.id): \(summary.joined(separator: ", "))")
                for domain in project.domains { Console.print("    \(domain)") }
            }
            // Still valid: such a route redirects, without what its clicks would be warned of.
            for (path, message) in configuration.routeWarnings() { Console.print("warning: \(path): \(message)") }
        }
    }
}
