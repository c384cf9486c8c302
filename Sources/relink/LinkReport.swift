import RelinkCore

/// How `relink parse` and `relink build` show a link's parameters, warnings and errors.
struct LinkReport: Encodable {
    var valid: Bool
    var domainUriPrefix: String?
    var parameters: LinkParameters
    var warnings: [LinkWarning]
    var errors: [LinkError]

    init(_ result: LongLinkParseResult) {
        valid = result.isValid
        domainUriPrefix = result.prefix?.description
        parameters = result.parameters
        warnings = result.warnings
        errors = result.errors
    }

    /// A table of parameters, then warnings and errors, one line each: values come from the link, and may hold anything.
    var text: String {
        var lines: [String] = []
        var rows = [["domain", domainUriPrefix ?? "-"]]
        rows += parameters.entries.map { [$0.parameter.name, $0.value] }
        lines.append(Console.table(rows))
        if !warnings.isEmpty {
            lines.append("")
            lines.append("warnings:")
            lines += warnings.map { "  \($0.code.rawValue) (\($0.parameter)): \(TerminalText.escaped($0.message))" }
        }
        if !errors.isEmpty {
            lines.append("")
            lines.append("errors:")
            lines += errors.map { "  \($0.code.rawValue)\($0.parameter.map { " (\($0))" } ?? ""): \(TerminalText.escaped($0.message))" }
        }
        lines.append("")
        lines.append(valid ? "valid" : "invalid: this link cannot redirect")
        return lines.joined(separator: "\n")
    }
}
