import RelinkCore

/// The `d=1` page: the flowchart, where each platform goes and why, what is wrong with the link, its parameters.
struct DebugPage: PageModel {
    static let page = PageRenderer.Page.debug

    struct Outcome: Sendable {
        var scenario: String
        var action: String
        var reason: String
        /// Percent-encoded.
        var destination: String?
    }

    /// An error, warning or allowlist violation.
    struct Problem: Sendable {
        var code: String
        var message: String
    }

    struct Parameter: Sendable {
        var name: String
        var value: String
        var summary: String
    }

    let assets = PageAssets()
    var linkURL: String
    /// `long link`, `route /p/{id}`, `short link abc`.
    var kind: String
    /// SVG, escaped by `DebugFlowchart` itself.
    var flowchart: String
    var outcomes: [Outcome]
    var hasProblems: Bool
    var errors: [Problem]
    var violations: [Problem]
    var warnings: [Problem]
    var parameters: [Parameter]
    /// How the rules decided for this request.
    var ruleNotes: [String]
    var hasRules: Bool
    var stateNotes: [String]

    init(_ report: DebugReport) {
        switch report.kind {
        case .longLink: kind = "long link"
        case .route(let template): kind = "route \(template)"
        case .shortLink(let code): kind = "short link \(code)"
        }
        linkURL = report.linkURL
        flowchart = DebugFlowchart.svg(report)
        outcomes = report.outcomes.map {
            Outcome(
                scenario: $0.scenario, action: $0.action, reason: $0.reason, destination: $0.destination.map(PercentEncoding.encodeForURL))
        }
        hasProblems = !(report.errors.isEmpty && report.violations.isEmpty && report.warnings.isEmpty)
        errors = report.errors.map { Problem(code: $0.code.rawValue, message: $0.message) }
        violations = report.violations.map { Problem(code: "NOT_ALLOWLISTED", message: $0.description) }
        warnings = report.warnings.map { Problem(code: $0.code.rawValue, message: $0.message) }
        stateNotes = report.stateNotes
        ruleNotes = report.ruleNotes
        hasRules = !report.ruleNotes.isEmpty
        parameters = report.parameters.entries.map { Parameter(name: $0.parameter.name, value: $0.value, summary: $0.parameter.summary) }
    }
}
