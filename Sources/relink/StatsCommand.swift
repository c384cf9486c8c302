import ArgumentParser
import Foundation
import RelinkClient
import RelinkCore

struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats", abstract: "Show a short link's clicks, redirects, installs and re-opens per platform.")

    @Argument(help: "The short link, such as https://go.pictlink.com/Ab3x.")
    var shortLink: String

    @Option(help: "How many days, up to today, to count.")
    var days: Int = 30

    @Flag(help: "Also show link-preview crawler visits.")
    var crawlers = false

    @Flag(help: "Print FDL's JSON instead of a table.")
    var json = false

    @Flag(
        help: ArgumentHelp(
            "Show how often fingerprint matching was right on the link's project, scored on installs whose token named their click."))
    var attribution = false

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
        if attribution {
            Console.print(Self.attributionReport(stats.attributionEstimate, days: days))
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

    /// The live estimate as a table, or why there is none yet.
    static func attributionReport(_ estimate: AttributionEstimate?, days: Int) -> String {
        guard let estimate, estimate.scoredClaims > 0 else {
            return "no claims settled by a token in the last \(days) day(s): nothing to score fingerprint matching against yet"
        }
        func percent(_ value: Double?) -> String { value.map { String(format: "%.1f%%", $0 * 100) } ?? "-" }
        var rows = [["CONFIDENCE", "ANSWERED", "RIGHT", "PRECISION", "RECALL"]]
        for (name, level) in [("DEFAULT", estimate.default), ("WEAK", estimate.weak)] {
            rows.append([name, String(level.answered), String(level.right), percent(level.precision), percent(level.recall)])
        }
        rows.append(["NONE", String(estimate.unmatched), "", "", ""])
        return Console.table(rows)
            + "\n\(estimate.scoredClaims) claim(s) settled by their token in the last \(days) day(s), each scored against what "
            + "fingerprint matching alone would have answered."
    }
}
