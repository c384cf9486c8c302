import Hummingbird
import RelinkCore

/// Every other GET or HEAD on a link domain: long links, routes and short links, answered by the redirect plan.
struct RedirectController: Sendable {
    let directory: DomainDirectory
    /// Per project: the validation context (every link domain, and the project itself), built once.
    let contexts: [String: LinkValidationContext]
    let pages: PageRenderer
    let trustForwardedHeaders: Bool

    init(configuration: RelinkConfiguration, pages: PageRenderer, trustForwardedHeaders: Bool) {
        directory = DomainDirectory(configuration)
        let domains = configuration.allDomains
        contexts = Dictionary(
            uniqueKeysWithValues: configuration.projects.map { ($0.id, LinkValidationContext(linkDomains: domains, project: $0)) })
        self.pages = pages
        self.trustForwardedHeaders = trustForwardedHeaders
    }

    func addRoutes(to router: Router<RelinkRequestContext>) {
        for path: RouterPath in ["/", "**"] {
            router.get(path) { request, context in try await handle(request, context) }
            router.head(path) { request, context in try await handle(request, context).createHeadResponse() }
        }
    }

    func handle(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let origin = RequestOrigin(request: request, remoteAddress: context.remoteAddress, trustForwardedHeaders: trustForwardedHeaders)
        let path = Substring(request.uri.path)
        guard let match = directory.match(host: origin.host, path: path) else {
            if directory.servesHost(origin.host) {
                return pages.message("Link not found", ["There is no link at \(origin.host)\(path)."], status: .notFound)
            }
            return pages.message("Unknown link domain", ["Relink serves no project on \(origin.host)."], status: .notFound)
        }
        let linkContext = contexts[match.project.id] ?? LinkValidationContext()
        let query = request.uri.query.map { Substring($0) }
        switch LinkRequest.resolve(
            project: match.project, prefix: match.prefix, relativePath: match.relativePath, query: query, context: linkContext)
        {
        case .longLink(let link), .route(let link):
            return respond(to: link, project: match.project, request: request)
        case .shortLink(let code, _):
            return notFound(shortLink: match.prefix.url(path: "/\(code)"))
        case .notFound:
            return pages.message("Link not found", ["There is no link at \(match.prefix.url(path: String(match.relativePath)))."], status: .notFound)
        }
    }

    func respond(to link: ResolvedLink, project: Project, request: Request) -> Response {
        let client = PlatformDetector.detect(userAgent: request.headers[.userAgent] ?? "")
        let plan = RedirectPlanner.plan(link, project: project, client: client, isHead: request.method == .head)
        return render(plan)
    }

    func render(_ plan: RedirectPlan) -> Response {
        switch plan {
        case .redirect(let url, _):
            return Response(status: .found, headers: [.location: PercentEncoding.encodeForURL(url), .cacheControl: "no-store"])
        case .appPreview(let preview):
            return pages.html(
                .appPreview,
                [
                    "appName": preview.appName, "title": preview.title ?? preview.appName, "description": preview.description as Any,
                    "imageURL": preview.imageURL as Any, "openURL": PercentEncoding.encodeForURL(preview.openURL),
                    "webURL": PercentEncoding.encodeForURL(preview.webURL),
                ])
        case .socialPreview(let preview):
            return pages.html(
                .socialPreview,
                [
                    "title": preview.title ?? preview.canonicalURL, "description": preview.description as Any,
                    "imageURL": preview.imageURL as Any, "canonicalURL": PercentEncoding.encodeForURL(preview.canonicalURL),
                ], noIndex: false)
        case .debug(let report):
            return pages.html(.debug, Self.debugValues(report))
        case .rejected(let rejection):
            let lines = rejection.errors.map(\.message) + rejection.violations.map(\.description)
            return pages.message("Invalid Dynamic Link", lines, status: .badRequest)
        }
    }

    /// FDL's wording for an unknown short link.
    func notFound(shortLink url: String) -> Response {
        pages.message("Dynamic Link Not Found", ["Short URL (\(url)) not found."], status: .notFound)
    }

    static func debugValues(_ report: DebugReport) -> [String: Any] {
        let kind: String
        switch report.kind {
        case .longLink: kind = "long link"
        case .route(let template): kind = "route \(template)"
        case .shortLink(let code): kind = "short link \(code)"
        }
        return [
            "linkURL": report.linkURL,
            "kind": kind,
            "flowchart": DebugFlowchart.svg(report),
            "outcomes": report.outcomes.map { outcome -> [String: Any] in
                [
                    "scenario": outcome.scenario, "action": outcome.action, "reason": outcome.reason,
                    "destination": outcome.destination.map(PercentEncoding.encodeForURL) as Any,
                ]
            },
            "hasProblems": !(report.errors.isEmpty && report.violations.isEmpty && report.warnings.isEmpty),
            "errors": report.errors.map { ["code": $0.code.rawValue, "message": $0.message] },
            "violations": report.violations.map { ["message": $0.description] },
            "warnings": report.warnings.map { ["code": $0.code.rawValue, "message": $0.message] },
            "parameters": report.parameters.entries.map { ["name": $0.parameter.name, "value": $0.value, "summary": $0.parameter.summary] },
        ]
    }
}
