import ArgumentParser
import RelinkClient
import RelinkCore

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Show a short link's clicks, redirects, installs and re-opens per platform.")

    @Argument(help: "The short link, such as https://pictlink.page.link/Ab3x.")
    var shortLink: String

    @Option(help: "How many days, up to today, to count.")
    var days: Int = 30

    @Flag(help: "Also show link-preview crawler visits.")
    var crawlers = false

    @Flag(help: "Print FDL's JSON instead of a table.")
    var json = false

    @OptionGroup var client: ClientOptions

    func validate() throws {
        guard (1...36_500).contains(days) else { throw ValidationError("--days must be from 1 to 36500") }
    }

    func run() async throws {
        let api = try client.client()
        let stats: LinkStatsResponse
        do {
            stats = try await api.linkStats(shortLink: shortLink, durationDays: days, includeCrawlers: crawlers)
        } catch {
            throw error.cliError
        }
        if json {
            Console.print(try Console.json(stats))
            return
        }
        guard !stats.linkEventStats.isEmpty else {
            Console.print("no events in the last \(days) day(s)")
            return
        }
        var rows = [["PLATFORM", "EVENT", "COUNT"]]
        rows += stats.linkEventStats.map { [$0.platform.rawValue, $0.event.rawValue, $0.count] }
        Console.print(Console.table(rows))
    }
}
