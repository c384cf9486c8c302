import ArgumentParser

@testable import relink

/// Runs a `relink` command in this process, with what it prints captured.
enum InProcessCommand {
    /// - Parameter arguments: the command line after `relink`.
    /// - Returns: the lines it printed to stdout and to stderr, and the error it ended with, if any.
    static func run(_ arguments: [String]) async -> (output: [String], errors: [String], error: (any Error)?) {
        let capture = Console.Capture()
        var failure: (any Error)?
        await Console.$capture.withValue(capture) {
            do {
                var command = try Relink.parseAsRoot(arguments)
                if var asyncCommand = command as? any AsyncParsableCommand {
                    try await asyncCommand.run()
                } else {
                    try command.run()
                }
            } catch {
                failure = error
            }
        }
        return (capture.output, capture.errors, failure)
    }
}
