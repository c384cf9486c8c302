import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RelinkCore
import RelinkStore

extension ConsoleController {
    /// The days a stats request asks for: `from` and `to` (YYYY-MM-DD, UTC), the last 30 days by default, at most
    /// `maximumDays`.
    func range(_ request: Request) throws -> ClosedRange<Int> {
        let today = EventCounterKey.day(of: Date())
        let parameters = request.uri.queryParameters
        func day(_ name: String, default value: Int) throws -> Int {
            guard let text = parameters.get(name), !text.isEmpty else { return value }
            guard let day = Self.day(text) else {
                throw ConsoleError.badRequest("\(name) must be a date such as 2026-11-24; got '\(text.leadingScalars(20))'.")
            }
            return day
        }
        let to = try day("to", default: today)
        let from = try day("from", default: to - 29)
        guard from <= to else { throw ConsoleError.badRequest("The range starts after it ends.") }
        guard to - from < Self.maximumDays else { throw ConsoleError.badRequest("Show at most \(Self.maximumDays) days at a time.") }
        return from...to
    }

    static func day(_ text: String) -> Int? {
        let parts = text.split(separator: "-")
        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2, let year = Int(parts[0]), let month = Int(parts[1]),
            let dayOfMonth = Int(parts[2]), (1970...9999).contains(year)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(year: year, month: month, day: dayOfMonth)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return EventCounterKey.day(of: date)
    }

    static func dayString(_ day: Int) -> String { String(APITime.format(Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10)) }

    /// What a stats request asks for: its user (within the costly pages' limit), the path's link or the signed-in
    /// project, and the days; with the counters still in memory written first, as on the API.
    func statsRequest(
        _ request: Request, _ context: RelinkRequestContext, link: Bool
    ) async throws -> (user: ConsoleUser, scope: StatsScope, record: ShortLinkRecord?, days: ClosedRange<Int>) {
        let user = try context.requireConsoleUser()
        try limitHeavy(user)
        var record: ShortLinkRecord?
        if link { record = try await storedLink(request, context, user: user) }
        let days = try range(request)
        guard await recorder.flush() else { throw StoreError.unwrittenClicks }
        return (user, record.map { .link(id: $0.id) } ?? .project(id: user.caller.project.id), record, days)
    }

    func stats(_ request: Request, _ context: RelinkRequestContext, link: Bool) async throws -> Response {
        let (user, scope, record, days) = try await statsRequest(request, context, link: link)
        let counts = try await service.store.dailyEventCounts(scope, fromDay: days.lowerBound, toDay: days.upperBound)
        let confidences = try await service.store.confidenceCounts(scope, fromDay: days.lowerBound, toDay: days.upperBound)
        let labels = days.map(Self.dayString)
        func values(_ event: LinkEvent, platforms: Set<StatsPlatform>) -> [Int64] {
            var series = [Int64](repeating: 0, count: days.count)
            for count in counts where count.event == event && platforms.contains(count.platform) {
                series[count.day - days.lowerBound] += count.count
            }
            return series
        }
        let humans: Set<StatsPlatform> = [.ios, .android, .desktop, .other]
        let platforms: [(StatsPlatform, String, String)] = [
            (.ios, "iOS", "ios"), (.android, "Android", "android"), (.desktop, "Desktop", "desktop"), (.other, "Other", "other"),
        ]
        let clicks = StatsChart.stackedBars(
            id: "clicks", title: "Clicks per day by platform", days: labels,
            series: platforms.map {
                StatsChart.Series(name: $0.1, style: "s-\($0.2)", swatch: "b-\($0.2)", values: values(.click, platforms: [$0.0]))
            })
        let eventSeries: [(LinkEvent, String)] = [
            (.click, "Clicks"), (.redirect, "Redirects"), (.appInstall, "Installs"), (.appFirstOpen, "First opens"), (.appReOpen, "Re-opens"),
        ]
        let events = StatsChart.lines(
            id: "events", title: "Clicks, redirects, installs and opens per day", days: labels,
            series: eventSeries.enumerated().map { index, entry in
                StatsChart.Series(name: entry.1, style: "l\(index + 1)", swatch: "b\(index + 1)", values: values(entry.0, platforms: humans))
            })
        let mix = StatsChart.shares(
            id: "confidence", title: "Attribution confidence of matched installs",
            series: [(AttributionConfidence.unique, "Unique"), (.default, "Default"), (.weak, "Weak")].enumerated().map { index, entry in
                StatsChart.Series(
                    name: entry.1, style: "f\(index + 1)", swatch: "b\(index + 1)",
                    values: [confidences.filter { $0.confidence == entry.0 }.reduce(0) { $0 + $1.count }])
            })
        let crawlers = counts.filter { $0.platform == .crawler && $0.event == .click }.reduce(0) { $0 + $1.count }
        let totals =
            eventSeries.map { entry in ConsoleStatsPage.Total(label: entry.1, value: String(values(entry.0, platforms: humans).reduce(0, +))) }
            + [ConsoleStatsPage.Total(label: "Crawler visits", value: String(crawlers))]
        let base = record.map { path($0) + "/stats" } ?? "/console/stats"
        let domain = record.map { domainQuery($0, user: user) }.flatMap { $0.isEmpty ? nil : String($0.dropFirst()) + "&" } ?? ""
        let window = "from=\(labels.first ?? "")&to=\(labels.last ?? "")"
        return renderer.html(
            ConsoleStatsPage(
                title: record.map { "Stats: \($0.code)" } ?? "Project stats",
                heading: record.map { "Stats of \($0.shortLink)" } ?? "Stats of project \(user.caller.project.id)", user: ConsolePageUser(user),
                action: base, from: labels.first ?? "", to: labels.last ?? "", csvHref: "\(base).csv?\(domain)\(window)",
                confidenceCSVHref: "\(base).csv?\(domain)\(window)&table=confidence", totals: totals, charts: [clicks, events, mix]))
    }

    /// The same numbers as CSV: per day, platform and event (crawlers included, as CRAWLER), or per day and
    /// confidence (`table=confidence`).
    func statsCSV(_ request: Request, _ context: RelinkRequestContext, link: Bool) async throws -> Response {
        let (user, scope, record, days) = try await statsRequest(request, context, link: link)
        var csv: String
        let confidence = request.uri.queryParameters.get("table") == "confidence"
        if confidence {
            csv = "date,confidence,installs\r\n"
            for count in try await service.store.confidenceCounts(scope, fromDay: days.lowerBound, toDay: days.upperBound) {
                csv += "\(Self.dayString(count.day)),\(count.confidence.rawValue),\(count.count)\r\n"
            }
        } else {
            csv = "date,platform,event,count\r\n"
            for count in try await service.store.dailyEventCounts(scope, fromDay: days.lowerBound, toDay: days.upperBound) {
                csv += "\(Self.dayString(count.day)),\(count.platform.rawValue),\(count.event.rawValue),\(count.count)\r\n"
            }
        }
        var headers = ConsoleRenderer.securityHeaders
        headers[.contentType] = "text/csv; charset=utf-8"
        let name = (record.map { Self.fileName($0.code) } ?? Self.fileName(user.caller.project.id)) + (confidence ? "-confidence" : "")
        headers[.contentDisposition] = "attachment; filename=\"\(name)-\(Self.dayString(days.lowerBound))-\(Self.dayString(days.upperBound)).csv\""
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: csv)))
    }
}
