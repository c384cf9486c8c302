import ArgumentParser
import Foundation
import RelinkClient
import RelinkCore
import RelinkServer

struct LinksCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "links", abstract: "List, show, disable and enable short links on a running server.",
        subcommands: [List.self, Show.self, Disable.self, Enable.self, RefreshPreview.self, Rules.self, Limit.self])

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the key's project's short links, newest first.")

        @Option(help: "Links per page (1 to 1000).")
        var pageSize: Int = 50

        @Option(help: "The page token printed after a previous page.")
        var pageToken: String?

        @Flag(help: "Print JSON instead of a table.")
        var json = false

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let api = try client.client()
            let page: LinkListResponse
            do {
                page = try await api.links(pageSize: pageSize, pageToken: pageToken)
            } catch {
                throw error.cliError
            }
            if json {
                Console.print(try Console.json(page))
                return
            }
            var rows = [["SHORT LINK", "NAME", "STATE", "CREATED", "DESTINATION"]]
            rows += page.links.map { link in
                [link.shortLink, LinksCommand.name(link), LinksCommand.state(link), link.createTime, LinksCommand.destination(link)]
            }
            Console.print(page.links.isEmpty ? "no links" : Console.table(rows))
            if let next = page.nextPageToken { Console.error("more: relink links list --page-token \(TerminalText.escaped(next))") }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one short link.")

        @Argument(help: "The short link.")
        var shortLink: String

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let api = try client.client()
            let link: ManagedLink
            do {
                link = try await api.link(shortLink)
            } catch {
                throw error.cliError
            }
            Console.print(try Console.json(link))
        }
    }

    struct Disable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Disable a short link: its clicks get 410 from now on.")

        @Argument(help: "The short link.")
        var shortLink: String

        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await LinksCommand.set(disabled: true, shortLink, client)
        }
    }

    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Enable a disabled short link again.")

        @Argument(help: "The short link.")
        var shortLink: String

        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await LinksCommand.set(disabled: false, shortLink, client)
        }
    }

    struct RefreshPreview: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "refresh-preview",
            abstract: "Fetch a short link's destination page now and store its preview card (title, description, image).")

        @Argument(help: "The short link.")
        var shortLink: String

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let api = try client.client()
            let link: ManagedLink
            do {
                link = try await api.refreshPreview(shortLink)
            } catch {
                throw error.cliError
            }
            guard let preview = link.preview else { throw CLIError(message: "\(TerminalText.escaped(link.shortLink)): no preview was stored") }
            Console.print(
                Console.table(
                    [
                        ["title", preview.title ?? "-"], ["description", preview.description ?? "-"], ["image", preview.imageLink ?? "-"],
                        ["page", preview.pageLink ?? "-"], ["fetched", preview.fetchTime],
                    ]))
            if let failure = preview.failure {
                throw CLIError(message: TerminalText.escaped("\(link.shortLink): the page gave no preview: \(failure)"))
            }
        }
    }

    struct Rules: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, set or remove a short link's rules and A/B variants.",
            discussion: "The file is JSON: {\"rules\": [...], \"variants\": [...]} (docs/rules.md). Without --set or --clear, prints them.")

        @Argument(help: "The short link.")
        var shortLink: String

        @Option(help: "A JSON file of rules and variants to put in place of the link's.")
        var set: String?

        @Flag(help: "Remove the link's rules and variants.")
        var clear = false

        @OptionGroup var client: ClientOptions

        func run() async throws {
            if set != nil, clear { throw CLIError.usage("--set and --clear exclude each other") }
            let api = try client.client()
            let link: ManagedLink
            do {
                if let set {
                    link = try await api.updateLink(shortLink, UpdateLinkRequest(rules: try LinksCommand.readRules(set)))
                } else if clear {
                    link = try await api.updateLink(shortLink, UpdateLinkRequest(rules: RelinkCore.LinkRules()))
                } else {
                    link = try await api.link(shortLink)
                }
            } catch let error as RelinkClientError {
                throw error.cliError
            }
            Console.print(try Console.json(link.rules ?? RelinkCore.LinkRules()))
        }
    }

    struct Limit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set or remove a short link's expiry, click limit and the link clicks go to once it is over.")

        @Argument(help: "The short link.")
        var shortLink: String

        @Option(help: "An RFC 3339 time, or \"\" to remove the expiry.")
        var expires: String?

        @Option(help: "A click limit, or 0 to remove it.")
        var maxClicks: Int?

        @Option(help: "Where clicks go once the link is over, or \"\" for 410 Gone.")
        var expiredLink: String?

        @OptionGroup var client: ClientOptions

        func run() async throws {
            guard expires != nil || maxClicks != nil || expiredLink != nil else {
                throw CLIError.usage("give at least one of --expires, --max-clicks and --expired-link")
            }
            let api = try client.client()
            let link: ManagedLink
            do {
                link = try await api.updateLink(shortLink, UpdateLinkRequest(expireTime: expires, maxClicks: maxClicks, expiredLink: expiredLink))
            } catch {
                throw error.cliError
            }
            var parts = [LinksCommand.state(link)]
            if let limit = link.maxClicks { parts.append("at most \(limit) clicks") }
            if let over = link.expiredLink { parts.append("then \(over)") }
            // One line, whatever the server's values hold.
            Console.print(TerminalText.escaped("\(link.shortLink): " + parts.joined(separator: ", ")))
        }
    }

    /// A rules file, read (1 MB at most) and decoded; a one-line error naming what is wrong. A field the API does
    /// not know is refused here, as the server refuses it: decoding alone would drop it, and a misspelt condition
    /// (`contries`) would make a rule match every click.
    static func readRules(_ path: String) throws(CLIError) -> RelinkCore.LinkRules {
        let limit = 1 << 20
        guard let handle = FileHandle(forReadingAtPath: path) else { throw CLIError.usage("cannot read '\(path)'") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: limit + 1) ?? Data()
        } catch {
            throw CLIError.usage("cannot read '\(path)'")
        }
        guard data.count <= limit else { throw CLIError.usage("'\(path)' is larger than 1 MB") }
        // As the API reads a body: UTF-8, each key once, every field known.
        guard JSONShape.isUTF8Text(data) else {
            throw CLIError.usage("'\(path)' is not UTF-8 JSON text")
        }
        if let problem = JSONShape.problem(data, subject: "'\(path)'") { throw CLIError.usage(problem) }
        switch RequestBodyShape.problem(in: data, schema: "LinkRules") {
        case .unknownField(let unknown)?:
            let place = unknown.path.isEmpty ? "" : " in \(unknown.path)"
            let name = TerminalText.escaped(unknown.name.leadingScalars(60))
            throw CLIError.usage("'\(path)' has a field rules do not take\(place): '\(name)' (docs/rules.md)")
        case .unreadable? where (try? JSONDecoder().decode(RelinkCore.LinkRules.self, from: data)) != nil:
            throw CLIError.usage("'\(path)' is not a rules file: a number is out of range or a string is not Unicode text")
        case .unreadable?, nil:
            break
        }
        do {
            return try JSONDecoder().decode(RelinkCore.LinkRules.self, from: data)
        } catch {
            throw CLIError.usage("'\(path)' is not a rules file ({\"rules\": [...], \"variants\": [...]}): \(error)")
        }
    }

    static func set(disabled: Bool, _ shortLink: String, _ client: ClientOptions) async throws {
        let api = try client.client()
        let link: ManagedLink
        do {
            link = try await api.updateLink(shortLink, UpdateLinkRequest(disabled: disabled))
        } catch {
            throw error.cliError
        }
        Console.print(TerminalText.escaped("\(link.shortLink): \(state(link))"))
    }

    /// `disabled`, `archived` (in Firebase, before the import; still served), `expires …` or `active`; an archived
    /// link is never plain `active`.
    static func state(_ link: ManagedLink) -> String {
        var parts: [String] = []
        if link.disabled { parts.append("disabled") }
        if link.archived == true { parts.append("archived") }
        if !link.disabled, let expire = link.expireTime { parts.append("expires \(expire)") }
        return parts.isEmpty ? "active" : parts.joined(separator: ", ")
    }

    /// The link's name for a table cell: on one line, `-` when it has none.
    static func name(_ link: ManagedLink) -> String {
        guard let name = link.name, !name.isEmpty else { return "-" }
        return cell(name)
    }

    /// `text` as one table cell: each control character, line or paragraph separator and bidirectional embedding,
    /// override or isolate as a space. A name stored before the API refused them, or by another server, may hold
    /// U+2028 or U+202E, and a right-to-left override would reverse the rest of the line in a terminal, the state and
    /// destination too.
    static func cell(_ text: String) -> String {
        String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    switch scalar.properties.generalCategory {
                    case .control, .lineSeparator, .paragraphSeparator: " "
                    default: (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value) ? " " : scalar
                    }
                }))
    }

    static func destination(_ link: ManagedLink) -> String {
        LongLink.parse(link.longDynamicLink).parameters.link ?? link.longDynamicLink
    }
}
