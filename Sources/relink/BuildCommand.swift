import ArgumentParser
import RelinkCore

struct BuildCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "build",
        abstract: "Print the long link for a set of parameters.",
        discussion: """
            Values are percent-encoded, so a `link` with its own query and fragment survives. Warnings go to \
            stderr; a link that could never redirect (no `link`, a `link` that is not http(s)) exits 1.

            Example:
              relink build --domain https://go.pictlink.com \\
                --link https://pictlink.com/myPage --apn jp.furyu.pictlink.android \\
                --ibi jp.furyu.pictlink.ios --ius pictlink --isi 000000001
            """
    )

    @Option(help: "The domain URI prefix, such as https://go.pictlink.com or https://pictlink.com/links.")
    var domain: String

    @Option(help: "Check the link against this routes.json's project for the domain (apps, store IDs).")
    var config: String?

    @OptionGroup(title: "Link parameters") var link: LinkParameterOptions

    func run() throws {
        let prefix: DomainURIPrefix
        do {
            prefix = try DomainURIPrefix(domain)
        } catch {
            throw CLIError.usage("--domain: \(error.description)")
        }
        let context = try ParseCommand.context(configPath: config, prefix: prefix)
        let longLink = LongLink(prefix: prefix, parameters: link.parameters)
        let result = LongLink.parse(longLink.url, context: context)
        for warning in result.warnings {
            Console.error("warning: \(warning.code.rawValue) (\(warning.parameter)): \(TerminalText.escaped(warning.message))")
        }
        guard result.isValid else {
            for error in result.errors { Console.error("error: \(TerminalText.escaped(error.message))") }
            throw ExitCode(CLIError.failureExitCode)
        }
        Console.print(longLink.url)
    }
}
