import ArgumentParser
import Foundation

@main
struct Relink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relink",
        abstract: "Self-hosted deep links, compatible with Firebase Dynamic Links.",
        subcommands: [BuildCommand.self, ParseCommand.self, ConfigCommand.self]
    )

    /// Runs a command with the exit codes the docs promise: 0 success, 1 a failure the command reports
    /// (an invalid link or configuration), 2 a usage error.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CLIError {
            Console.error("relink: \(error.message)")
            Foundation.exit(error.exitCode)
        } catch {
            if exitCode(for: error) == .validationFailure {
                Console.error(fullMessage(for: error))
                Foundation.exit(CLIError.usageExitCode)
            }
            exit(withError: error)
        }
    }
}
