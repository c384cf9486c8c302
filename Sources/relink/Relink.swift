import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import RelinkCore

@main
struct Relink: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relink",
        abstract: "Self-hosted deep links, compatible with Firebase Dynamic Links.",
        version: RelinkVersion.current,
        subcommands: [
            ServeCommand.self, BuildCommand.self, ParseCommand.self, MintCommand.self, StatsCommand.self, LinksCommand.self,
            KeysCommand.self, ConfigCommand.self, WellKnownCommand.self, DeferredCommand.self, ImportCommand.self, VerifyCommand.self,
            DoctorCommand.self, WebhooksCommand.self, BackupCommand.self,
        ]
    )

    /// Runs a command with the exit codes the docs promise: 0 success, 1 a failure the command reports
    /// (an invalid link or configuration), 2 a usage error.
    static func main() async {
        // Run Swift concurrency on SwiftNIO's event loops, so a request's handler runs on the thread that read it
        // instead of hopping to another pool and back (docs/performance.md#swift-concurrency-on-the-event-loops).
        _ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
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
