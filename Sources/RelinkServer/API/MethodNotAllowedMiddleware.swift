import HTTPTypes
import Hummingbird
import RelinkCore

/// Answers 405 with `Allow` (and the API's JSON error) for a method that no route takes on a path under `/v1` that
/// a route serves, and 405 with `Allow: GET, HEAD` for a method other than those outside the API and the console
/// (the console's 404 page inside it). Hummingbird's router hands an unknown path and an unknown method on a known path alike to its
/// not-found responder; this tells them apart from the router's own list of routes. Added to the router after every
/// route, it wraps that not-found responder alone: a request a route answers never passes through it.
struct MethodNotAllowedMiddleware: RouterMiddleware {
    typealias Context = RelinkRequestContext

    /// Each path under `/v1` that the router serves, with the methods it takes (HEAD wherever GET: the router
    /// generates those endpoints).
    let paths: [(path: RouterPath, methods: Set<HTTPRequest.Method>)]

    /// The console's pages, when they are on this router: they answer below `/console` themselves.
    let console: ConsoleMiddleware?
    /// Whether links are served here (not on the console's own listener): a path outside the API and the console is
    /// then a link's.
    let servesLinks: Bool

    init(routes: [Router<Context>.RouteDescription], console: ConsoleMiddleware?, servesLinks: Bool = true) {
        self.console = console
        self.servesLinks = servesLinks
        var methods: [String: (path: RouterPath, methods: Set<HTTPRequest.Method>)] = [:]
        for route in routes where route.path.first.map({ $0 == APIPath.version }) == true {
            methods[route.path.description, default: (route.path, [])].methods.insert(route.method)
            if route.method == .get { methods[route.path.description]?.methods.insert(.head) }
        }
        paths = methods.values.sorted { $0.path.description < $1.path.description }
    }

    @concurrent func handle(
        _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        // On the console's own listener the API is not served either: `/v1` is a path like any other there.
        guard servesLinks && APIPath.isAPI(Substring(path)) else {
            let reads = request.method == .get || request.method == .head
            // The console's pages answer what they do not have with their 404 page, a method they do not take too (on
            // the console's own listener, every path is theirs).
            if let console, !servesLinks || RelinkPaths.isConsole(Substring(path)) {
                guard !(servesLinks && reads) else { return try await next(request, context) }
                let page = console.response(for: ConsoleError.notFound("There is no such page in the console."), request: request, context: context)
                return request.method == .head ? page.createHeadResponse() : page
            }
            // Elsewhere every path is a link's or Relink's own, which answer GET and HEAD: another method no route took
            // (`POST /healthz`, `TRACE` on a link) is refused as on a link.
            guard !reads else { return try await next(request, context) }
            return try RedirectController.methodNotAllowed(request)
        }
        guard let allowed = allowedMethods(path), !allowed.contains(request.method) else {
            return try await next(request, context)
        }
        let allow = allowed.map(\.rawValue).sorted().joined(separator: ", ")
        throw APIError(
            status: .methodNotAllowed, message: "\(request.method) is not supported on \(path); it takes \(allow).", headers: [.allow: allow])
    }

    /// The methods of every route whose path matches, nil when none does.
    func allowedMethods(_ path: String) -> Set<HTTPRequest.Method>? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        let matching = paths.filter { Self.matches($0.path, segments) }
        return matching.isEmpty ? nil : matching.reduce(into: []) { $0.formUnion($1.methods) }
    }

    /// A segment equals a literal component byte for byte; captures take any one segment, `**` the rest.
    static func matches(_ path: RouterPath, _ segments: [Substring]) -> Bool {
        var index = 0
        for component in path.components {
            if component.description == "**" { return true }
            guard index < segments.count else { return false }
            let segment = segments[index]
            let isLiteral = component == component.description
            guard isLiteral ? segment.utf8.elementsEqual(component.description.utf8) : component ~= segment else { return false }
            index += 1
        }
        return index == segments.count
    }
}
