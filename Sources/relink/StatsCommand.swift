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

    @Flag(help: "Show each A/B variant's clicks, redirects, installs and first opens, with installs per click.")
    var variants = false

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
        if variants {
            Console.print(Self.variantReport(stats.variantEventStats ?? [], days: days))
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

    /// One row per variant: each event summed over platforms, and installs per click, so a winner can be read off.
    static func variantReport(_ stats: [LinkStatsResponse.VariantEventStat], days: Int) -> String {
        guard !stats.isEmpty else { return "no variant events in the last \(days) day(s) (does the link have variants?)" }
        var totals: [String: [LinkEvent: Int64]] = [:]
        for stat in stats { totals[stat.variant, default: [:]][stat.event, default: 0] += Int64(stat.count) ?? 0 }
        let events: [LinkEvent] = [.click, .redirect, .appInstall, .appFirstOpen, .appReOpen]
        var rows = [["VARIANT"] + events.map(\.rawValue) + ["INSTALLS/CLICK"]]
        for (variant, counts) in totals.sorted(by: { $0.key < $1.key }) {
            let clicks = counts[.click] ?? 0
            let rate = clicks > 0 ? String(format: "%.1f%%", Double(counts[.appInstall] ?? 0) / Double(clicks) * 100) : "-"
            rows.append([variant] + events.map { String(counts[$0] ?? 0) } + [rate])
        }
        return Console.table(rows)
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
