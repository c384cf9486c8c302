import ArgumentParser

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Bring links over from another service.", subcommands: [ImportFirebaseCommand.self])
}
