import Foundation

/// A chart of the console's statistics: an SVG drawn on the server (readable without JavaScript, with an accessible
/// title and description) and the same numbers as a table. Every text in the SVG goes through `HTMLEscaper`.
struct StatsChart: Sendable {
    struct LegendItem: Sendable {
        var label: String
        var swatch: String
    }

    struct Cell: Sendable {
        var text: String
        var numeric: Bool
    }

    struct Header: Sendable {
        var label: String
        var numeric: Bool
    }

    struct Row: Sendable {
        var cells: [Cell]
    }

    /// One series: its name, the CSS classes that colour it in the SVG and in the legend, its value per day.
    struct Series: Sendable {
        var name: String
        var style: String
        var swatch: String
        var values: [Int64]
    }

    var id: String
    var title: String
    var svg: String
    var legend: [LegendItem]
    var headers: [Header]
    var rows: [Row]

    static let width = 640.0
    static let height = 240.0
    static let left = 44.0
    static let right = 8.0
    static let top = 10.0
    static let bottom = 26.0

    /// Stacked bars per day (clicks by platform), with a Total column in the table.
    static func stackedBars(id: String, title: String, days: [String], series: [Series]) -> StatsChart {
        let totals = days.indices.map { day in series.reduce(0) { $0 + $1.values[day] } }
        let maximum = niceMaximum(totals.max() ?? 0)
        var body = ""
        let slot = (width - left - right) / Double(max(1, days.count))
        let barWidth = max(1, slot * 0.8)
        for (index, day) in days.enumerated() {
            var base = 0.0
            let x = left + Double(index) * slot + (slot - barWidth) / 2
            for entry in series where entry.values[index] > 0 {
                let value = Double(entry.values[index])
                let h = value / Double(maximum) * (height - top - bottom)
                let y = height - bottom - base - h
                body += "<rect class=\"\(entry.style)\" x=\"\(format(x))\" y=\"\(format(y))\" width=\"\(format(barWidth))\" height=\"\(format(h))\">"
                body += "<title>\(HTMLEscaper.escape("\(day) \(entry.name): \(entry.values[index])"))</title></rect>"
                base += h
            }
        }
        let description =
            "\(title) from \(days.first ?? "") to \(days.last ?? ""): \(totals.reduce(0, +)) in all, at most \(totals.max() ?? 0) a day."
        let headers =
            [Header(label: "Date", numeric: false)] + series.map { Header(label: $0.name, numeric: true) } + [Header(label: "Total", numeric: true)]
        let rows = days.indices.map { index in
            Row(
                cells: [Cell(text: days[index], numeric: false)] + series.map { Cell(text: String($0.values[index]), numeric: true) } + [
                    Cell(text: String(totals[index]), numeric: true)
                ])
        }
        return StatsChart(
            id: id, title: title, svg: frame(id: id, title: title, description: description, maximum: maximum, days: days, body: body),
            legend: series.map { LegendItem(label: $0.name, swatch: $0.swatch) }, headers: headers, rows: rows)
    }

    /// One line per series (events per day).
    static func lines(id: String, title: String, days: [String], series: [Series]) -> StatsChart {
        let maximum = niceMaximum(series.flatMap(\.values).max() ?? 0)
        let slot = (width - left - right) / Double(max(1, days.count))
        var body = ""
        for entry in series {
            let points = entry.values.enumerated().map { index, value in
                let x = left + Double(index) * slot + slot / 2
                let y = height - bottom - Double(value) / Double(maximum) * (height - top - bottom)
                return "\(format(x)),\(format(y))"
            }
            body += "<polyline class=\"\(entry.style)\" fill=\"none\" stroke-width=\"2\" points=\"\(points.joined(separator: " "))\">"
            body += "<title>\(HTMLEscaper.escape("\(entry.name): \(entry.values.reduce(0, +)) in all"))</title></polyline>"
        }
        let description =
            "\(title) from \(days.first ?? "") to \(days.last ?? ""): "
            + series.map { "\($0.name) \($0.values.reduce(0, +))" }.joined(separator: ", ") + "."
        let headers = [Header(label: "Date", numeric: false)] + series.map { Header(label: $0.name, numeric: true) }
        let rows = days.indices.map { index in
            Row(cells: [Cell(text: days[index], numeric: false)] + series.map { Cell(text: String($0.values[index]), numeric: true) })
        }
        return StatsChart(
            id: id, title: title, svg: frame(id: id, title: title, description: description, maximum: maximum, days: days, body: body),
            legend: series.map { LegendItem(label: $0.name, swatch: $0.swatch) }, headers: headers, rows: rows)
    }

    /// One bar split by share (each series' single value): the attribution confidence mix.
    static func shares(id: String, title: String, series: [Series]) -> StatsChart {
        let values = series.map { $0.values.reduce(0, +) }
        let total = values.reduce(0, +)
        let barHeight = 48.0
        var body = ""
        var x = left
        let span = width - left - right
        if total == 0 {
            body = "<rect class=\"axis\" fill=\"none\" x=\"\(format(left))\" y=\"40\" width=\"\(format(span))\" height=\"\(format(barHeight))\"/>"
            body += "<text x=\"\(format(left + 8))\" y=\"70\">No installs matched in this range</text>"
        }
        for (entry, value) in zip(series, values) where value > 0 && total > 0 {
            let w = Double(value) / Double(total) * span
            body += "<rect class=\"\(entry.style)\" x=\"\(format(x))\" y=\"40\" width=\"\(format(w))\" height=\"\(format(barHeight))\">"
            body += "<title>\(HTMLEscaper.escape("\(entry.name): \(value) (\(percent(value, of: total)))"))</title></rect>"
            x += w
        }
        let description =
            "\(title): "
            + (total == 0 ? "no installs." : zip(series, values).map { "\($0.name) \(percent($1, of: total))" }.joined(separator: ", ") + ".")
        let svg = """
            <svg class="plot" viewBox="0 0 \(format(width)) 130" role="img" aria-labelledby="\(id)-title \(id)-desc">\
            <title id="\(id)-title">\(HTMLEscaper.escape(title))</title><desc id="\(id)-desc">\(HTMLEscaper.escape(description))</desc>\
            \(body)</svg>
            """
        return StatsChart(
            id: id, title: title, svg: svg, legend: series.map { LegendItem(label: $0.name, swatch: $0.swatch) },
            headers: [Header(label: "Confidence", numeric: false), Header(label: "Installs", numeric: true), Header(label: "Share", numeric: true)],
            rows: zip(series, values).map { entry, value in
                Row(cells: [
                    Cell(text: entry.name, numeric: false), Cell(text: String(value), numeric: true),
                    Cell(text: total == 0 ? "–" : percent(value, of: total), numeric: true),
                ])
            })
    }

    /// The axes, grid and labels around `body`.
    static func frame(id: String, title: String, description: String, maximum: Int64, days: [String], body: String) -> String {
        var grid = ""
        for step in 0...4 {
            let value = maximum * Int64(step) / 4
            let y = height - bottom - Double(step) / 4 * (height - top - bottom)
            grid += "<line class=\"axis\" x1=\"\(format(left))\" x2=\"\(format(width - right))\" y1=\"\(format(y))\" y2=\"\(format(y))\"/>"
            grid += "<text x=\"\(format(left - 6))\" y=\"\(format(y + 4))\" text-anchor=\"end\">\(value)</text>"
        }
        let slot = (width - left - right) / Double(max(1, days.count))
        var labels = ""
        for index in Set([0, days.count / 2, days.count - 1]).sorted() where days.indices.contains(index) {
            let x = left + Double(index) * slot + slot / 2
            let anchor = index == 0 ? "start" : index == days.count - 1 ? "end" : "middle"
            labels += "<text x=\"\(format(x))\" y=\"\(format(height - 8))\" text-anchor=\"\(anchor)\">\(HTMLEscaper.escape(days[index]))</text>"
        }
        return """
            <svg class="plot" viewBox="0 0 \(format(width)) \(format(height))" role="img" aria-labelledby="\(id)-title \(id)-desc">\
            <title id="\(id)-title">\(HTMLEscaper.escape(title))</title><desc id="\(id)-desc">\(HTMLEscaper.escape(description))</desc>\
            \(grid)\(body)\(labels)</svg>
            """
    }

    /// The smallest of 1, 2, 2.5 or 5 times a power of ten at or above `value` (at least 4, so the grid's quarters are whole).
    static func niceMaximum(_ value: Int64) -> Int64 {
        guard value > 4 else { return 4 }
        var magnitude: Int64 = 1
        while magnitude * 10 <= value { magnitude *= 10 }
        for factor in [1.0, 2.0, 2.5, 5.0, 10.0] {
            let candidate = Int64((Double(magnitude) * factor).rounded(.up))
            if candidate >= value, candidate % 4 == 0 || candidate >= 100 { return candidate }
        }
        return magnitude * 10
    }

    static func percent(_ value: Int64, of total: Int64) -> String {
        String(format: "%.1f%%", Double(value) * 100 / Double(max(1, total)))
    }

    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
}
