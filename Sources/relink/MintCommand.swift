import ArgumentParser
import RelinkClient
import RelinkCore

struct MintCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mint",
        abstract: "Mint a short link on a running server, from a long link or from parameter flags.",
        discussion: """
            Examples:
              relink mint 'https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2FmyPage&apn=jp.furyu.pictlink.android'
              relink mint --domain https://go.pictlink.com --link https://pictlink.com/spring --suffix short
              relink mint --domain https://go.pictlink.com --link https://pictlink.com/spring --slug spring
            """
    )

    @Argument(help: "A long link. Without it, use --domain and the parameter flags.")
    var longLink: String?

    @Option(help: "The domain URI prefix, with the parameter flags.")
    var domain: String?

    @Option(help: "short, unguessable (the default) or custom.")
    var suffix: String?

    @Option(help: "The custom suffix (implies --suffix custom): [A-Za-z0-9_-]{1,64}.")
    var slug: String?

    @Flag(help: "Fill the link's preview card from its destination page (og: and twitter: tags, fetched in the background).")
    var fetchPreview = false

    @Option(help: "A JSON file of rules and A/B variants for the link ({\"rules\": [...], \"variants\": [...]}, see docs/rules.md).")
    var rules: String?

    @Option(help: "When the link is over: an RFC 3339 time such as 2026-12-31T23:59:59Z.")
    var expires: String?

    @Option(help: "The link is over after this many human clicks.")
    var maxClicks: Int?

    @Option(help: "Where clicks go once the link is over (default: 410 Gone).")
    var expiredLink: String?

    @Option(help: "The link's name, as the console and `relink links list` show it (up to 200 characters).")
    var name: String?

    @Flag(help: "Print the whole JSON response.")
    var json = false

    @OptionGroup var client: ClientOptions
    @OptionGroup(title: "Link parameters") var link: LinkParameterOptions

    func request() throws(CLIError) -> CreateShortLinkRequest {
        let option: SuffixOption
        switch (suffix?.lowercased(), slug) {
        case (nil, nil): option = .unguessable
        case (nil, .some), ("custom", .some): option = .custom
        case ("custom", nil): throw CLIError.usage("--suffix custom needs --slug")
        case ("short", nil): option = .short
        case ("unguessable", nil): option = .unguessable
        case (let other?, nil): throw CLIError.usage("--suffix must be short, unguessable or custom, got '\(other)'")
        case (_, .some): throw CLIError.usage("--slug goes with --suffix custom (or no --suffix)")
        }
        let suffix = CreateShortLinkRequest.Suffix(option: option.rawValue, customSuffix: slug)
        if let longLink {
            guard domain == nil, link.parameters.isEmpty else {
                throw CLIError.usage("give either a long link or --domain with parameter flags, not both")
            }
            return CreateShortLinkRequest(
                longDynamicLink: longLink, suffix: suffix, fetchPreview: fetchPreview ? true : nil, rules: try rules.map(LinksCommand.readRules),
                expireTime: expires, maxClicks: maxClicks, expiredLink: expiredLink, name: name)
        }
        guard let domain else { throw CLIError.usage("give a long link, or --domain and at least --link") }
        return CreateShortLinkRequest(
            dynamicLinkInfo: DynamicLinkInfo(domainUriPrefix: domain, parameters: link.parameters), suffix: suffix,
            fetchPreview: fetchPreview ? true : nil, rules: try rules.map(LinksCommand.readRules),
            expireTime: expires, maxClicks: maxClicks, expiredLink: expiredLink, name: name)
    }

    func run() async throws {
        let request = try request()
        let api = try client.client()
        let response: CreateShortLinkResponse
        do {
            response = try await api.createShortLink(request)
        } catch {
            throw error.cliError
        }
        for warning in response.warning {
            Console.error("warning: \(TerminalText.escaped(warning.warningCode)): \(TerminalText.escaped(warning.warningMessage))")
        }
        // One line, whatever the server sent: a script reads it as the link.
        Console.print(json ? try Console.json(response) : TerminalText.escaped(response.shortLink))
    }
}
