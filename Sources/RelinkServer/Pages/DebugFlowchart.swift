import RelinkCore

/// The debug page's flowchart as inline SVG: the link, then one branch per kind of click, each ending in what
/// happens and where. Styling uses presentation attributes only, which the page's CSP permits.
enum DebugFlowchart {
    static func svg(_ report: DebugReport) -> String {
        let rowHeight = 64
        let height = max(1, report.outcomes.count) * rowHeight + 16
        let centerY = height / 2
        var parts: [String] = [
            #"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 960 \#(height)" role="img" aria-label="Where each kind of click goes" font-family="system-ui, sans-serif" font-size="13">"#,
            box(x: 8, y: centerY - 24, width: 150, height: 48, lines: ["Click on", shorten(report.linkURL, 22)], fill: "#0a66d8", text: "#ffffff"),
        ]
        for (index, outcome) in report.outcomes.enumerated() {
            let y = 8 + index * rowHeight
            let middle = y + 24
            parts.append(line(x1: 158, y1: centerY, x2: 220, y2: middle))
            parts.append(box(x: 220, y: y, width: 210, height: 48, lines: [outcome.scenario], fill: "none", text: "currentColor"))
            parts.append(line(x1: 430, y1: middle, x2: 470, y2: middle))
            let rejected = outcome.action.hasPrefix("Rejected")
            parts.append(
                box(
                    x: 470, y: y, width: 482, height: 48,
                    lines: [outcome.action, outcome.destination.map { shorten($0, 70) } ?? ""],
                    fill: rejected ? "#b3261e" : "#2e7d32", text: "#ffffff"))
        }
        parts.append("</svg>")
        return parts.joined(separator: "\n")
    }

    private static func box(x: Int, y: Int, width: Int, height: Int, lines: [String], fill: String, text: String) -> String {
        var svg =
            #"<rect x="\#(x)" y="\#(y)" width="\#(width)" height="\#(height)" rx="8" fill="\#(fill)" stroke="\#(fill == "none" ? "currentColor" : fill)"/>"#
        let visible = lines.filter { !$0.isEmpty }
        for (index, line) in visible.enumerated() {
            let offset = visible.count == 1 ? height / 2 + 5 : 19 + index * 18
            svg += #"<text x="\#(x + 10)" y="\#(y + offset)" fill="\#(text)">\#(escape(line))</text>"#
        }
        return svg
    }

    private static func line(x1: Int, y1: Int, x2: Int, y2: Int) -> String {
        #"<path d="M\#(x1) \#(y1) C\#((x1 + x2) / 2) \#(y1), \#((x1 + x2) / 2) \#(y2), \#(x2) \#(y2)" fill="none" stroke="currentColor" stroke-opacity="0.5"/>"#
    }

    private static func shorten(_ text: String, _ length: Int) -> String {
        text.count <= length ? text : String(text.prefix(length - 1)) + "…"
    }

    /// The flowchart is inserted into the page unescaped, so all of its text goes through the pages' escaper.
    static func escape(_ text: String) -> String {
        HTMLEscaper.escape(text)
    }
}
