/// A failure the CLI reports as one line on stderr, with its exit code.
struct CLIError: Error {
    static let failureExitCode: Int32 = 1
    static let usageExitCode: Int32 = 2

    var message: String
    var exitCode: Int32 = CLIError.failureExitCode

    static func usage(_ message: String) -> CLIError {
        CLIError(message: message, exitCode: usageExitCode)
    }
}
