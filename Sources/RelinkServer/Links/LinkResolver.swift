import Foundation
import RelinkCore
import RelinkStore

/// The one way from a request on a link domain to what it stands for, asked by clicks, re-opens, claims and
/// minting alike: host and path to a project (`DomainDirectory`), path and query to a long link, route or short
/// code (`LinkRequest`), a short code to its stored link (through the `LinkCache`), whether that link is active.
/// Built once per application, so the directory and each project's validation context are made once.
final class LinkResolver: Sendable {
    let configuration: RelinkConfiguration
    let directory: DomainDirectory
    let store: any RelinkStore
    /// The store, when its lookups are immediate (SQLite's): then nothing about a link is waited for.
    let immediateLookup: (any ImmediateLinkLookup)?
    let cache: LinkCache
    /// Per project id: the validation context (every link domain, and the project itself).
    private let contexts: [String: LinkValidationContext]

    /// With `--dev-host`: the host and port of the development project's first domain, which loopback hosts stand for.
    let developmentHost: String?

    init(configuration: RelinkConfiguration, store: any RelinkStore, cache: LinkCache, developmentProject: String? = nil) {
        self.configuration = configuration
        self.directory = DomainDirectory(configuration)
        self.developmentHost = developmentProject.flatMap { configuration.project(id: $0)?.domains.first?.hostAndPort }
        self.store = store
        self.immediateLookup = store as? any ImmediateLinkLookup
        self.cache = cache
        let domains = configuration.allDomains
        contexts = Dictionary(
            uniqueKeysWithValues: configuration.projects.map { ($0.id, LinkValidationContext(linkDomains: domains, project: $0)) })
    }

    /// How links of `project` are validated.
    func validationContext(for project: Project) -> LinkValidationContext {
        contexts[project.id] ?? LinkValidationContext(linkDomains: configuration.allDomains, project: project)
    }

    /// A link Relink serves, resolved.
    struct Target: Sendable {
        var project: Project
        var prefix: DomainURIPrefix
        /// The link with the project's defaults applied; `isDebug` when the request asked for the debug page.
        var link: ResolvedLink
        /// The stored link and what clicks derive from it, for a short link.
        var shortLink: ResolvedShortLink?
        /// A route's path parameters, decoded: filled by `resolve(linkURL:)` for apps, never for clicks.
        var routeParameters: [String: String]?

        /// The long form of the link: as requested for a long link, made from the parameters otherwise.
        var longLink: String {
            if case .longLink = link.kind { return link.url }
            return LongLink(prefix: prefix, parameters: link.parameters).url
        }
    }

    /// What a request on a link domain comes to.
    enum Resolution: Sendable {
        /// No project serves the host.
        case unknownDomain(host: String)
        /// The host is served, but nothing is at this path; `url` is the link as asked for.
        case notFound(url: String)
        /// A short code that no stored link has (FDL words this apart).
        case unknownShortLink(url: String)
        /// A stored short link that is disabled or expired; `debug` when `d=1` asked for its debug page.
        case inactive(ShortLinkRecord, debug: Bool)
        case found(Target)
    }

    /// Resolves a request for `path` and `query` on `host` (a `Host` header value).
    /// - Throws: the store's error when a short link could not be looked up.
    func resolve(host requestHost: String, path: Substring, query: Substring?, now: Date = Date()) async throws -> Resolution {
        switch try resolveNow(host: requestHost, path: path, query: query, now: now) {
        case .resolved(let resolution):
            return resolution
        case .needsStore(let code):
            let resolved = try await cache.link(
                domain: code.domain, code: code.code, project: code.project, prefix: code.prefix,
                load: { try await store.link(domain: code.domain, code: code.code) })
            return code.resolution(of: resolved, resolver: self, now: now)
        }
    }

    /// A short code whose link is not in memory.
    struct UncachedCode {
        var project: Project
        var prefix: DomainURIPrefix
        var domain: String
        var code: String
        var debug: Bool

        func resolution(of resolved: ResolvedShortLink?, resolver: LinkResolver, now: Date) -> Resolution {
            guard let resolved else { return .unknownShortLink(url: prefix.url(path: "/\(code)")) }
            let record = resolved.record
            guard record.isActive(at: now) else { return .inactive(record, debug: debug) }
            let link = debug ? resolver.debugLink(resolved.link, record: record, project: project, prefix: prefix) : resolved.link
            return .found(Target(project: project, prefix: prefix, link: link, shortLink: resolved))
        }
    }

    enum ImmediateResolution {
        case resolved(Resolution)
        case needsStore(UncachedCode)
    }

    /// Resolves without waiting: from the configuration, the link cache, and a store whose lookups are immediate
    /// (SQLite's); else the short code `resolve` would have to look up.
    /// - Throws: the store's error when an immediate lookup failed.
    func resolveNow(host requestHost: String, path: Substring, query: Substring?, now: Date = Date()) throws -> ImmediateResolution {
        let host = servedHost(requestHost)
        guard let match = directory.match(host: host, path: path) else {
            return .resolved(directory.servesHost(host) ? .notFound(url: "\(host)\(path)") : .unknownDomain(host: host))
        }
        let project = match.project
        switch LinkRequest.resolve(
            project: project, prefix: match.prefix, relativePath: match.relativePath, query: query,
            context: validationContext(for: project))
        {
        case .longLink(let link), .route(let link):
            return .resolved(.found(Target(project: project, prefix: match.prefix, link: link)))
        case .shortLink(let code, let debug):
            let uncached = UncachedCode(project: project, prefix: match.prefix, domain: match.prefix.description, code: code.value, debug: debug)
            if let immediateLookup {
                let resolved = try cache.linkNow(
                    domain: uncached.domain, code: uncached.code, project: project, prefix: match.prefix,
                    load: { try immediateLookup.linkImmediately(domain: uncached.domain, code: uncached.code) })
                return .resolved(uncached.resolution(of: resolved, resolver: self, now: now))
            }
            switch cache.fromMemory(domain: uncached.domain, code: uncached.code, project: project, prefix: match.prefix) {
            case .answered(let resolved): return .resolved(uncached.resolution(of: resolved, resolver: self, now: now))
            case .missing: return .needsStore(uncached)
            }
        case .notFound:
            return .resolved(.notFound(url: match.prefix.url(path: String(match.relativePath))))
        }
    }

    /// The host a request's `Host` stands for: itself, or with `--dev-host` a loopback name no project serves stands
    /// for the development project's first domain. Production never listens on loopback alone, so it never gets here.
    func servedHost(_ host: String) -> String {
        guard let developmentHost, Self.isLoopbackName(host), !directory.servesHost(host) else { return host }
        return developmentHost
    }

    /// `localhost`, `127.0.0.1` or `[::1]`, with or without a port.
    static func isLoopbackName(_ host: String) -> Bool {
        let name: Substring
        if host.hasPrefix("[") {
            name = host[...(host.firstIndex(of: "]") ?? host.index(before: host.endIndex))]
        } else {
            name = host.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        }
        return ["localhost", "127.0.0.1", "[::1]"].contains(name.lowercased())
    }

    /// Forgets a link this instance changed, so the next click reads it as stored. Not its own copy in its place:
    /// another instance's change of the link may have committed after this one, its notice already applied here, and
    /// the copy would then be served for the cache's whole age.
    func forget(_ record: ShortLinkRecord) {
        cache.invalidate(domain: record.domain, code: record.code)
    }

    /// Puts a link this instance created in the cache, as clicks will need it (or forgets it, when its domain is no
    /// longer one of a project's).
    func remember(_ record: ShortLinkRecord) {
        guard let (project, prefix, _) = directory.shortLink(record.shortLink), prefix.description == record.domain else {
            cache.invalidate(domain: record.domain, code: record.code)
            return
        }
        cache.store(record, project: project, prefix: prefix)
    }

    /// A stored link as its debug page shows it (`d=1` on a click, the console's debug view).
    func debugLink(for record: ShortLinkRecord, project: Project, prefix: DomainURIPrefix) -> ResolvedLink {
        debugLink(ResolvedShortLink(record: record, project: project, prefix: prefix).link, record: record, project: project, prefix: prefix)
    }

    /// `link` marked for the debug page, listing what is wrong with the stored parameters, as a long link's page does.
    private func debugLink(_ link: ResolvedLink, record: ShortLinkRecord, project: Project, prefix: DomainURIPrefix) -> ResolvedLink {
        var link = link
        let validation = LinkValidator.validate(record.parameters, prefix: prefix, context: validationContext(for: project))
        link.isDebug = true
        link.warnings = validation.warnings
        link.errors = validation.errors
        return link
    }

    /// Resolves a whole link URL (a short link, long link or route) as a click on it would be, for the API:
    /// what claims hand to installs and re-opens to apps. A link that could not redirect is an error.
    /// - Throws: `APIError` NOT_FOUND for what Relink does not serve or no longer serves, INVALID_ARGUMENT for a
    ///   link with errors or outside the project's allowlist; the store's error when it could not be asked.
    func resolve(linkURL text: String) async throws -> Target {
        guard let uri = AbsoluteURI(text), uri.isHTTP, let host = uri.host else {
            throw APIError.notFound("Dynamic Link Not Found: \(text.leadingScalars(300)) is not on a Relink link domain.")
        }
        let hostKey = uri.port.map { "\(host):\($0)" } ?? host
        let path = Substring(uri.path.isEmpty ? "/" : uri.path)
        let resolution = try await resolve(host: hostKey, path: path, query: uri.query.map { Substring($0) })
        switch resolution {
        case .unknownDomain:
            throw APIError.notFound("Dynamic Link Not Found: \(text.leadingScalars(300)) is not on a Relink link domain.")
        case .notFound:
            throw APIError.notFound("Dynamic Link Not Found: \(text.leadingScalars(300))")
        case .unknownShortLink(let url):
            throw APIError.notFound("Dynamic Link Not Found: Short URL (\(url)) not found.")
        case .inactive(let record, _):
            throw APIError.notFound("Dynamic Link Not Found: Short URL (\(record.domain)/\(record.code)) is no longer available.")
        case .found(var target):
            if let error = target.link.errors.first { throw APIError.invalidArgument(error.message) }
            let project = target.project
            if let violation = project.allowlist.violations(in: target.link.parameters, projectDomains: project.domains).first {
                throw APIError.invalidArgument(violation.description)
            }
            if case .route = target.link.kind, let match = directory.match(host: hostKey, path: path) {
                target.routeParameters = LinkRequest.routeParameters(project: project, relativePath: match.relativePath)
            }
            return target
        }
    }
}
