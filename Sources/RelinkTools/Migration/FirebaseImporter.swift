import Foundation
import RelinkCore
import RelinkServer
import RelinkStore

/// Brings a project's Firebase Dynamic Links over from FDL's export: every short link keeps its exact code on its
/// domain. Two passes over the rows, so memory does not grow with the file: the first checks every row and compares
/// it with the store, the second writes in batches, and only when the first found nothing wrong (unless told to
/// import what is valid). An import that stops half-way resumes by running it again: rows already in are unchanged.
public struct FirebaseImporter: Sendable {
    public struct Options: Sendable {
        public var projectId: String
        /// Only rows on this domain URI prefix (an export is one file per domain).
        public var domain: DomainURIPrefix?
        public var dryRun = false
        /// Overwrite links whose row changed since they were imported.
        public var update = false
        /// Import the valid rows even when others are invalid or in conflict.
        public var continueOnError = false
        public var batchSize = 1000
        /// Rows on one of Google's domains (`*.page.link`, `app.goo.gl`), which cannot move, are imported onto this
        /// domain of the project instead, each with its code.
        public var rehome: DomainURIPrefix?

        /// Creates the options for `projectId`; the others are set one by one.
        public init(projectId: String) { self.projectId = projectId }
    }

    /// What a row is against the store.
    public enum Outcome: Equatable, Sendable {
        case new
        case unchanged
        case conflict(String)
        case invalid(String)
    }

    public struct Problem: Sendable, Equatable {
        /// 1-based, counting the header row: the line in a file whose fields hold no line breaks.
        public var row: Int
        public var shortLink: String?
        public var reason: String
    }

    public struct Summary: Sendable, Equatable {
        public var rows = 0
        public var imported = 0
        public var updated = 0
        public var unchanged = 0
        public var conflicts = 0
        /// The conflicts that are a code appearing again in the file (counted in `conflicts` too): `--update` cannot
        /// settle them, since either row could be meant.
        public var duplicates = 0
        public var invalid = 0
        public var archived = 0
        /// Rows on a Google domain that are (or, when nothing was written, would be) on `Options.rehome`.
        public var rehomed = 0
        /// The first `maximumProblems` problems; the counts above are complete.
        public var problems: [Problem] = []
        public var layout: FirebaseExport.Layout?
        /// Whether anything was written.
        public var written = false
        /// Rows the first pass found to write (new, or updated with `--update`) that the second did not write: the file
        /// or the store changed between the passes. An import run again picks them up.
        public var notWritten = 0

        public static let maximumProblems = 1000

        mutating func report(_ problem: Problem) {
            if problems.count < Self.maximumProblems { problems.append(problem) }
        }
    }

    /// The next row of the file, nil at its end; throws when the file cannot be read on (bad UTF-8, a read error),
    /// so that an import never takes a file cut short for a whole one.
    public typealias NextRow = () throws -> [String]?

    /// Thrown by `NextRow` for a row the file's reader could not split into fields (malformed CSV quoting): that row
    /// is invalid for `reason`, and reading goes on with the next one.
    public struct MalformedRow: Error, Sendable, Equatable {
        public var reason: String

        public init(reason: String) { self.reason = reason }
    }

    /// The next row's fields, or why it could not be read; nil at the end.
    static func read(_ next: NextRow) throws -> Result<[String], MalformedRow>? {
        do {
            return try next().map { .success($0) }
        } catch let malformed as MalformedRow {
            return .failure(malformed)
        }
    }

    let configuration: RelinkConfiguration
    let directory: DomainDirectory
    let store: any RelinkStore

    public init(configuration: RelinkConfiguration, store: any RelinkStore) {
        self.configuration = configuration
        self.directory = DomainDirectory(configuration)
        self.store = store
    }

    /// A valid row: the link it becomes, and its old short link when it moves off a Google domain.
    struct Checked {
        var draft: ShortLinkDraft
        var rehomedFrom: String?
    }

    /// Whether a host is one of Google's link domains, which no DNS change of a team's can move.
    static func isGoogleHost(_ host: String) -> Bool {
        host.hasSuffix(".page.link") || host == "app.goo.gl" || host == "goo.gl"
    }

    /// A row as the link it would become, or why it cannot be one.
    func draft(_ fields: [String], layout: FirebaseExport.Layout, options: Options) -> Result<Checked, FirebaseExport.RowProblem> {
        let row: FirebaseExport.Row
        do {
            row = try FirebaseExport.row(fields, layout: layout)
        } catch {
            return .failure(error)
        }
        var shortLink = row.shortLink
        var rehomedFrom: String?
        let uri = AbsoluteURI(row.shortLink.trimmingCharacters(in: .whitespaces))
        if let uri, let problem = Self.spellingProblem(uri) { return .failure(.init(problem)) }
        if let uri, let host = uri.host?.lowercased(), Self.isGoogleHost(host) {
            guard let rehome = options.rehome else {
                return .failure(
                    .init(
                        "\(host) is Google's domain and cannot be moved to Relink: reissue its links on a domain of your own "
                            + "(--rehome with one of the project's domains imports them there, each with its code)"))
            }
            shortLink = rehome.url(path: uri.path)
            rehomedFrom = uri.string
        }
        guard let (project, prefix, code) = directory.shortLink(shortLink) else {
            return .failure(.init(notAShortLink(shortLink)))
        }
        guard project.id == options.projectId else {
            return .failure(.init("its domain \(prefix) belongs to project \(project.id), not \(options.projectId)"))
        }
        if rehomedFrom == nil, let uri, uri.scheme != prefix.scheme {
            return .failure(
                .init(
                    "'\(uri.string.leadingScalars(200))' is \(uri.scheme), and its domain in routes.json is \(prefix): write the short link as \(prefix.scheme)"
                ))
        }
        if let domain = options.domain, domain != prefix {
            return .failure(.init("its domain is \(prefix), not \(domain)"))
        }
        if RelinkPaths.isReserved(code.value, project: project) {
            return .failure(.init("the code '\(code.value)' is one of Relink's paths or a route of the project, so the link could never be reached"))
        }
        var parameters = row.parameters
        parameters.d = nil
        guard parameters.link != nil else { return .failure(.init("the row has no link")) }
        if let error = LongLink.lengthError(of: parameters, prefix: prefix) { return .failure(.init(error.message)) }
        let context = LinkValidationContext(linkDomains: configuration.projects.flatMap(\.domains), project: project)
        let validation = LinkValidator.validate(parameters, prefix: prefix, context: context)
        if let error = validation.errors.first { return .failure(.init(error.message)) }
        // FDL ignored a bad isi with a warning; imported links should work as intended, so it is not taken.
        if let warning = validation.warnings.first(where: { $0.code == .notNumericIOSAppStoreID }) { return .failure(.init(warning.message)) }
        if let violation = project.allowlist.violations(in: parameters, projectDomains: project.domains).first {
            return .failure(.init(violation.description))
        }
        let draft = ShortLinkDraft(
            projectId: project.id, domain: prefix.description, code: code.value,
            longLink: LongLink(prefix: prefix, parameters: parameters).url, parameters: parameters, suffixOption: .custom,
            idempotencyKey: nil, createdAt: row.createdAt ?? Date(), archived: row.archived, name: row.name)
        return .success(Checked(draft: draft, rehomedFrom: rehomedFrom))
    }

    /// What a short link of FDL's export never has, which the import would otherwise drop without a word: a fragment
    /// (browsers do not send it, so the link would answer without it), or a query on a Google domain (moved with
    /// `--rehome`, the link would lose it; one on the project's own domain is refused by `notAShortLink`).
    static func spellingProblem(_ uri: AbsoluteURI) -> String? {
        let quoted = "'\(uri.string.leadingScalars(200))'"
        if uri.fragment != nil { return "\(quoted) has a fragment (#…): a short link has none, and browsers do not send it; write it without" }
        if let host = uri.host?.lowercased(), isGoogleHost(host), let query = uri.query, query != APIPath.debugQuery {
            return "\(quoted) has a query: a short link has none"
        }
        return nil
    }

    /// Why `shortLink` is not a short link of routes.json, as precisely as the URL allows.
    func notAShortLink(_ shortLink: String) -> String {
        let quoted = "'\(shortLink.leadingScalars(200))'"
        guard let uri = AbsoluteURI(shortLink.trimmingCharacters(in: .whitespaces)), uri.isHTTP, let host = uri.host else {
            return "\(quoted) is not an http or https URL"
        }
        guard let match = directory.match(host: uri.port.map { "\(host):\($0)" } ?? host, path: Substring(uri.path)) else {
            return "\(quoted) is not on a domain of routes.json"
        }
        let code = match.relativePath.dropFirst()
        if code.isEmpty { return "\(quoted) has no code after its domain \(match.prefix)" }
        if code.contains("/") {
            var reason = "its code '\(code.leadingScalars(200))' has a '/': a short link's code is one path segment"
            let context = LinkValidationContext(linkDomains: configuration.projects.flatMap(\.domains), project: match.project)
            let request = LinkRequest.resolve(
                project: match.project, prefix: match.prefix, relativePath: match.relativePath, query: nil, context: context)
            if case .route(let resolved) = request, case .route(let template) = resolved.kind {
                reason += "; the project's route \(template) answers \(resolved.url.leadingScalars(200)) already"
                if let link = resolved.parameters.link { reason += " (with \(link.leadingScalars(200)))" }
            }
            return reason
        }
        if code.utf8.count > ShortCode.maximumLength {
            return "its code is \(code.utf8.count) bytes long: a short link's code has at most \(ShortCode.maximumLength)"
        }
        if ShortCode(code) == nil {
            return "its code '\(code.leadingScalars(200))' has characters a short link's code cannot have (only A-Z, a-z, 0-9, _ and -)"
        }
        if let query = uri.query, query != APIPath.debugQuery { return "\(quoted) has a query: a short link has none" }
        return "\(quoted) is not a short link on a domain of routes.json"
    }

    /// The conflict that `--update` leaves alone: a project's import never overwrites another project's link.
    static let anotherProjectsLink = "the code is another project's link"

    /// The other one: a row moved off a Google domain never overwrites a link already on the project's domain, which
    /// is most likely the team's own with the same code (the store cannot tell it from the same link imported before).
    static let ownLinkHoldsRehomedCode =
        "a link of the project's own domain already has this code; --update does not overwrite it with a row moved off a Google domain (import that row with another code, or drop it)"

    /// Whether `--update` may overwrite the existing link in `outcome`'s conflict.
    static func updatable(_ outcome: Outcome) -> Bool {
        outcome != .conflict(anotherProjectsLink) && outcome != .conflict(ownLinkHoldsRehomedCode)
    }

    /// How a valid draft stands against what the store holds.
    static func outcome(_ draft: ShortLinkDraft, existing: ShortLinkRecord?) -> Outcome {
        guard let existing else { return .new }
        guard existing.projectId == draft.projectId else { return .conflict(anotherProjectsLink) }
        if existing.longLink == draft.longLink, existing.archived == draft.archived, existing.name == draft.name { return .unchanged }
        return .conflict("a link with this code exists and differs (\(existing.longLink.leadingScalars(200)))")
    }

    /// Runs the import.
    /// - Parameters:
    ///   - options: the project, domain and modes.
    ///   - rows: opens the rows (the first one is the header, or a link), once per pass.
    ///   - progress: called every `batchSize` rows with the pass (1 checks, 2 writes) and the rows done.
    ///   - rehomed: called in the first pass, with `Options.rehome`, for each valid row that moves off a Google domain:
    ///     its old short link and its new one (streamed, so a long list is never held).
    /// - Returns: the counts and the first problems.
    /// - Throws: the store's errors, and whatever `rows` or `rehomed` throws.
    public func run(
        _ options: Options, rows: () throws -> NextRow, progress: (_ pass: Int, _ rows: Int) -> Void = { _, _ in },
        rehomed: (_ old: String, _ new: String) throws -> Void = { _, _ in }
    ) async throws -> Summary {
        var summary = Summary()
        // Pass 1: every row checked and compared, nothing written. Codes seen go to a scratch file, so memory does
        // not grow with the file.
        let seen = try SeenCodes()
        var next = try rows()
        guard let first = try next() else { return summary }
        let layout = FirebaseExport.layout(firstRow: first)
        summary.layout = layout
        var number = 1
        var planned = 0
        func check(_ row: Int, _ fields: [String]) async throws -> (Outcome, Checked?) {
            switch draft(fields, layout: layout, options: options) {
            case .failure(let problem): return (.invalid(problem.message), nil)
            case .success(let checked):
                let draft = checked.draft
                var outcome = Self.outcome(draft, existing: try await store.link(domain: draft.domain, code: draft.code))
                if checked.rehomedFrom != nil, case .conflict(let reason) = outcome, reason != Self.anotherProjectsLink {
                    outcome = .conflict(Self.ownLinkHoldsRehomedCode)
                }
                return (outcome, checked)
            }
        }
        func count(_ row: Int, _ fields: [String]) async throws {
            summary.rows += 1
            let (outcome, checked) = try await check(row, fields)
            let draft = checked?.draft
            if let draft, try !seen.insert(domain: draft.domain, code: draft.code) {
                summary.conflicts += 1
                summary.duplicates += 1
                summary.report(Problem(row: row, shortLink: draft.domain + "/" + draft.code, reason: "the code appears earlier in the file"))
                return
            }
            switch outcome {
            case .new:
                planned += 1
                if draft?.archived == true { summary.archived += 1 }
            case .unchanged: summary.unchanged += 1
            case .conflict(let reason):
                if options.update, Self.updatable(outcome) { planned += 1 }
                summary.conflicts += 1
                summary.report(Problem(row: row, shortLink: draft.map { $0.domain + "/" + $0.code }, reason: reason))
            case .invalid(let reason):
                summary.invalid += 1
                summary.report(Problem(row: row, shortLink: fields.first, reason: reason))
            }
            // A moved link lands where the import puts it: new, already there, or overwritten with --update (never
            // over another project's link, which pass 2 skips: the old link must not be sent there).
            let lands = outcome == .new || outcome == .unchanged || (options.update && Self.updatable(outcome))
            if let checked, let old = checked.rehomedFrom, lands {
                summary.rehomed += 1
                try rehomed(old, checked.draft.domain + "/" + checked.draft.code)
            }
        }
        if !layout.hasHeader { try await count(1, first) }
        while let read = try Self.read(next) {
            number += 1
            switch read {
            case .success(let fields): try await count(number, fields)
            case .failure(let malformed):
                summary.rows += 1
                summary.invalid += 1
                summary.report(Problem(row: number, shortLink: nil, reason: malformed.reason))
            }
            if number % options.batchSize == 0 { progress(1, summary.rows) }
        }
        progress(1, summary.rows)
        let blocked =
            !options.continueOnError
            && (summary.invalid > 0 || summary.duplicates > 0 || (summary.conflicts > summary.duplicates && !options.update))
        // An import run again finds every row unchanged: nothing to write, no second pass.
        let toWrite = summary.rows - summary.unchanged - summary.invalid - (options.update ? summary.duplicates : summary.conflicts)
        guard !options.dryRun, !blocked, toWrite > 0 else { return summary }

        // Pass 2: the same rows again, new ones inserted a batch a transaction, changed ones updated with --update.
        summary.written = true
        try seen.removeAll()
        next = try rows()
        number = 0
        var batch: [ShortLinkDraft] = []
        func flush() async throws {
            guard !batch.isEmpty else { return }
            let skipped = try await store.importLinks(batch)
            summary.imported += batch.count - skipped.count
            batch = []
        }
        while let read = try Self.read(next) {
            number += 1
            // A malformed row was counted invalid in pass 1.
            guard case .success(let fields) = read, number > 1 || !layout.hasHeader else { continue }
            let (outcome, checked) = try await check(number, fields)
            guard let draft = checked?.draft, try seen.insert(domain: draft.domain, code: draft.code) else { continue }
            switch outcome {
            case .new:
                batch.append(draft)
                if batch.count >= options.batchSize {
                    try await flush()
                    progress(2, number)
                }
            case .conflict where options.update && Self.updatable(outcome):
                guard let existing = try await store.link(domain: draft.domain, code: draft.code), existing.projectId == draft.projectId
                else { continue }
                // Applied to the link as stored at the write: a change made meanwhile to its other fields is kept.
                _ = try await store.updateLink(id: existing.id) { stored in
                    var updated = stored
                    updated.longLink = draft.longLink
                    updated.parameters = draft.parameters
                    updated.archived = draft.archived
                    updated.name = draft.name
                    return updated
                }
                summary.updated += 1
            default: continue
            }
        }
        try await flush()
        progress(2, number)
        // Conflicts updated are no longer conflicts.
        summary.conflicts -= summary.updated
        summary.notWritten = max(0, planned - summary.imported - summary.updated)
        return summary
    }
}
