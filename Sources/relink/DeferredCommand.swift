import ArgumentParser

struct DeferredCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "deferred", abstract: "Test deferred deep links on a device.", subcommands: [DeferredTestCommand.self])
}
