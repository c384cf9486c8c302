import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RelinkCore
import RelinkStore

/// The web console under `/console`: sign-in, links (list, create, edit, disable, debug view), statistics as charts
/// and QR codes. Everything it does goes through the API's own services (`ShortLinkService`, the mint rate limiter,
/// the event recorder and store), with the signed-in key as the caller, so it can do no more than that key could.
struct ConsoleController: Sendable {
    let service: ShortLinkService
    let recorder: EventRecorder
    let authenticator: APIKeyAuthenticator
    let sessions: ConsoleSessions
    let renderer: ConsoleRenderer
    let rateLimiter: RateLimiter<Int64>
    var outages: StoreOutageLog?
    /// Per key: QR codes and stats take far more work than a page, so one session cannot keep the cores busy.
    let heavyLimiter: RateLimiter<Int64>
    static let heavyLimit = RateLimit(requestsPerSecond: 5, burst: 30)

    /// The longest date range one stats page shows.
    static let maximumDays = 366
    static let pageSize = 50

    /// In front of every console route; also answers what no console route takes (`MethodNotAllowedMiddleware`).
    var middleware: ConsoleMiddleware { ConsoleMiddleware(sessions: sessions, renderer: renderer, outages: outages) }

    func addRoutes(to router: Router<RelinkRequestContext>) {
        let console = router.group(RouterPath(RelinkPaths.console)).add(middleware: middleware)
        console.get { _, _ in Self.redirect("/console/links") }
        console.get("sign-in") { request, context in try await signInForm(request, context) }
        console.post("sign-in") { request, context in try await signIn(request, context) }
        console.post("sign-out") { request, context in try await signOut(request, context) }
        console.get("links") { request, context in try await links(request, context) }
        console.get("links/new") { request, context in try newLink(request, context) }
        console.post("links") { request, context in try await create(request, context) }
        console.post("links/validate") { request, context in try await validate(request, context) }
        console.get("links/:code") { request, context in try await link(request, context) }
        console.post("links/:code") { request, context in try await update(request, context) }
        console.get("links/:code/edit") { request, context in try await edit(request, context) }
        console.post("links/:code/disable") { request, context in try await setDisabled(true, request, context) }
        console.post("links/:code/enable") { request, context in try await setDisabled(false, request, context) }
        console.get("links/:code/debug") { request, context in try await debug(request, context) }
        console.get("links/:code/stats") { request, context in try await stats(request, context, link: true) }
        console.get("links/:code/stats.csv") { request, context in try await statsCSV(request, context, link: true) }
        console.get("links/:code/qr.svg") { request, context in try await qrCode(request, context, png: false) }
        console.get("links/:code/qr.png") { request, context in try await qrCode(request, context, png: true) }
        console.get("stats") { request, context in try await stats(request, context, link: false) }
        console.get("stats.csv") { request, context in try await statsCSV(request, context, link: false) }
        // Anything else under /console is a console page too: a 404 with the console's headers, never a link.
        for method: HTTPRequest.Method in [.get, .post, .put, .delete, .patch] {
            console.on("**", method: method) { _, _ -> Response in throw ConsoleError.notFound("There is no such page in the console.") }
        }
    }

    // MARK: Signing in and out

    func signInForm(
        _ request: Request, _ context: RelinkRequestContext, error: String? = nil, status: HTTPResponse.Status = .ok
    ) async throws
        -> Response
    {
        if context.console != nil, error == nil { return Self.redirect("/console/links") }
        let token = sessions.signInToken()
        return renderer.html(
            ConsoleSignInPage(csrf: token, error: error), status: status,
            headers: [.setCookie: ConsoleSessions.signInCookie(token, secure: isSecure(request, context)).description])
    }

    func signIn(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let form = try await Self.form(request, context)
        // A login form has no session yet: its token must be one this service issued, match its own cookie, and the
        // request come from the console itself.
        let secure = isSecure(request, context)
        let cookie = request.cookies[ConsoleSessions.signInCookieName(secure: secure)]?.value.description ?? ""
        guard sameOrigin(request, context), ConsoleSessions.sameToken(form["csrf"], cookie), sessions.isValidSignInToken(cookie) else {
            throw ConsoleError.forgedRequest
        }
        let key = (form["key"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !key.isEmpty, key.utf8.count <= 200 else {
            return try await signInForm(request, context, error: "Enter an API key or a console token.", status: .badRequest)
        }
        let caller: APIKeyAuthenticator.Caller
        do {
            caller = try await authenticator.authenticate(consoleKey: key, request: request, context: context)
        } catch let error as APIError where error.status == .unauthorized || error.status == .forbidden {
            return try await signInForm(request, context, error: "That key is not valid here.", status: .unauthorized)
        }
        let session = try await sessions.signIn(caller, secure: secure)
        context.logger.info("console sign-in", metadata: ["project": "\(caller.project.id)", "key_id": "\(caller.key.id)"])
        var response = Self.redirect("/console/links")
        response.headers[values: .setCookie].append(session.description)
        response.headers[values: .setCookie].append(
            Cookie(
                name: ConsoleSessions.signInCookieName(secure: secure), value: "", maxAge: 0, path: ConsoleSessions.cookiePath(secure: secure),
                secure: secure, sameSite: .strict
            ).description)
        return response
    }

    func signOut(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        _ = try await userForm(request, context)
        let cookie: Cookie
        do {
            cookie = try await sessions.signOut(request, secure: isSecure(request, context))
        } catch let unfinished as ConsoleSessions.SignOutUnfinished {
            context.logger.error("console sign-out could not end its session: \(unfinished.cause)")
            var response = renderer.html(
                ConsoleMessagePage(
                    title: "Temporarily unavailable", heading: "Signed out of this browser", user: nil,
                    paragraphs: [
                        "This browser no longer holds the session, but the server could not end it just now: it expires by "
                            + "itself within \(ConsoleSessions.lifetime.components.seconds / 3600) hours of signing in, and revoking "
                            + "the key ends it at once."
                    ], back: "/console/sign-in", backLabel: "Sign in"),
                status: .serviceUnavailable)
            response.headers[values: .setCookie].append(unfinished.clearing.description)
            response.headers[.retryAfter] = "1"
            return response
        }
        var response = Self.redirect("/console/sign-in")
        response.headers[values: .setCookie].append(cookie.description)
        return response
    }

    // MARK: Links

    func links(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let user = try context.requireConsoleUser()
        let query = String((request.uri.queryParameters.get("q") ?? "").prefix(LinkSearch.maximumLength))
        var before: Int64?
        if let text = request.uri.queryParameters.get("before"), !text.isEmpty {
            guard let id = Int64(text), id > 0 else { throw ConsoleError.badRequest("That page of links does not exist.") }
            before = id
        }
        let records = try await service.store.links(
            projectId: user.caller.project.id, matching: query, beforeId: before, limit: Self.pageSize + 1)
        let page = Array(records.prefix(Self.pageSize))
        // Clicks still in memory count too, as in the API (its 503 when they could not be written).
        guard await recorder.flush() else { throw StoreError.unwrittenClicks }
        let clicks = try await service.store.clickCounts(linkIds: page.map(\.id), fromDay: EventCounterKey.day(of: Date()) - 6)
        let search = query.isEmpty ? "" : "q=\(PercentEncoding.encodeComponent(query))&"
        let rows = page.map { record in
            ConsoleLinksPage.Row(
                code: record.code, domain: record.domain, href: href(record, user: user), name: record.name,
                destination: record.parameters[.link] ?? record.longLink,
                state: Self.state(record), clicks: String(clicks[record.id] ?? 0), created: Self.date(record.createdAt))
        }
        return renderer.html(
            ConsoleLinksPage(
                user: ConsolePageUser(user), query: query,
                links: rows, empty: rows.isEmpty,
                firstHref: before == nil ? nil : "/console/links" + (query.isEmpty ? "" : "?q=\(PercentEncoding.encodeComponent(query))"),
                nextHref: records.count > Self.pageSize ? page.last.map { "/console/links?\(search)before=\($0.id)" } : nil))
    }

    func newLink(_ request: Request, _ context: RelinkRequestContext) throws -> Response {
        let user = try context.requireConsoleUser()
        return renderer.html(formPage(user: user, record: nil, values: [:], errors: [], warnings: []))
    }

    func create(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let (user, form) = try await userForm(request, context)
        if case .failure(let error) = rateLimiter.acquire(
            keyId: user.caller.key.id, limit: user.caller.project.rateLimit, limiting: "minting with this key")
        {
            throw error
        }
        let suffixOption = form["suffix"] ?? "UNGUESSABLE"
        let custom = (form["customSuffix"] ?? "").trimmingCharacters(in: .whitespaces)
        do {
            let longLink = try longLink(form, user: user)
            let request = CreateShortLinkRequest(
                longDynamicLink: longLink,
                suffix: .init(option: custom.isEmpty ? suffixOption : "CUSTOM", customSuffix: custom.isEmpty ? nil : custom),
                name: form["name"])
            let (record, _) = try await service.mint(request, caller: user.caller)
            return Self.redirect(href(record, user: user) + (href(record, user: user).contains("?") ? "&" : "?") + "created=1")
        } catch let error as APIError where error.status.code < 500 && error.status != .tooManyRequests {
            return renderer.html(formPage(user: user, record: nil, values: form, errors: [error.message], warnings: []), status: error.status)
        }
    }

    func link(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let user = try context.requireConsoleUser()
        let record = try await storedLink(request, context, user: user)
        // Clicks still in memory count too, as in the API (its 503 when they could not be written).
        guard await recorder.flush() else { throw StoreError.unwrittenClicks }
        let clicks = try await service.store.clickCounts(linkIds: [record.id], fromDay: EventCounterKey.day(of: Date()) - 6)[record.id] ?? 0
        let base = path(record)
        let query = domainQuery(record, user: user)
        var notices: [String] = []
        if request.uri.queryParameters.get("created") != nil { notices.append("Link created.") }
        if request.uri.queryParameters.get("saved") != nil { notices.append("Changes saved.") }
        let linkWarnings = warnings(of: record, user: user)
        let qrMissing = QRCode.Library.shared == nil ? QRCode.EncodingError.libraryMissing(QRCode.Library.loadFailure).description : nil
        return renderer.html(
            ConsoleLinkPage(
                title: record.code, user: ConsolePageUser(user), csrf: user.session.csrfToken, notices: notices, code: record.code,
                shortLink: record.shortLink, name: record.name, state: Self.state(record),
                stateNote: record.archived ? "archived in Firebase before it was imported; still served" : nil,
                destination: record.parameters[.link] ?? record.longLink,
                clicks: String(clicks), created: Self.date(record.createdAt), updated: Self.date(record.updatedAt),
                parameters: record.parameters.entries.map { ConsoleLinkPage.Parameter(name: $0.parameter.name, value: $0.value) },
                warnings: linkWarnings, hasWarnings: !linkWarnings.isEmpty, editHref: base + "/edit" + query, statsHref: base + "/stats" + query,
                debugHref: base + "/debug" + query, toggleHref: base + (record.disabled ? "/enable" : "/disable") + query,
                toggleLabel: record.disabled ? "Enable" : "Disable",
                qrPreviewHref: base + "/qr.svg?size=256" + query.replacingOccurrences(of: "?", with: "&"),
                qrSVGAction: base + "/qr.svg", qrPNGAction: base + "/qr.png",
                domainField: query.isEmpty ? nil : record.domain, qrMissing: qrMissing))
    }

    func edit(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let user = try context.requireConsoleUser()
        let record = try await storedLink(request, context, user: user)
        let values = Dictionary(record.parameters.entries.map { ($0.parameter.name, $0.value) }, uniquingKeysWith: { a, _ in a })
        return renderer.html(formPage(user: user, record: record, values: values, errors: [], warnings: warnings(of: record, user: user)))
    }

    func update(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let (user, form) = try await userForm(request, context)
        let record = try await storedLink(request, context, user: user)
        do {
            var values = form
            values["domain"] = record.domain
            // A text field cannot hold a line break: a stored value with one comes back without it, and is kept.
            for (parameter, value) in record.parameters.entries where LinkFormFields.holdsUneditable(value) {
                if values[parameter.name] == LinkFormFields.editable(value) { values[parameter.name] = value }
            }
            let saved = try await service.update(
                record, with: UpdateLinkRequest(longDynamicLink: try longLink(values, user: user)), caller: user.caller)
            return Self.redirect(href(saved, user: user) + (href(saved, user: user).contains("?") ? "&" : "?") + "saved=1")
        } catch let error as APIError where error.status.code < 500 {
            return renderer.html(formPage(user: user, record: record, values: form, errors: [error.message], warnings: []), status: error.status)
        }
    }

    func setDisabled(_ disabled: Bool, _ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let (user, _) = try await userForm(request, context)
        let record = try await storedLink(request, context, user: user)
        let saved = try await service.update(record, with: UpdateLinkRequest(disabled: disabled), caller: user.caller)
        return Self.redirect(href(saved, user: user))
    }

    /// The form's values checked as minting would check them: the codec's errors and FDL's warnings, as JSON.
    func validate(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let (user, form) = try await userForm(request, context)
        var result = LinkCheck(errors: [], warnings: [], longLink: nil)
        do {
            let longLink = try longLink(form, user: user)
            result.longLink = longLink
            let target = try service.target(longDynamicLink: longLink, dynamicLinkInfo: nil, caller: user.caller)
            result.warnings = target.warnings.map { LinkCheck.Warning(code: $0.code.rawValue, message: $0.message, parameter: $0.parameter) }
            // The code, as minting will check it: its form, Relink's reserved paths, and the links that have it.
            let custom = form["customSuffix"] ?? ""
            if !custom.isEmpty {
                if let problem = try await service.customSuffixProblem(custom, domain: target.prefix.description, project: target.project) {
                    result.errors.append(problem)
                }
            }
        } catch let error as APIError where error.status.code < 500 {
            result.errors = [error.message]
        }
        var response = try context.responseEncoder.encode(result, from: request, context: context)
        response.headers.append(contentsOf: ConsoleRenderer.securityHeaders)
        return response
    }

    struct LinkCheck: ResponseEncodable {
        struct Warning: Codable {
            var code: String
            var message: String
            /// The query key it is about: the form shows it beside that field (or in the summary when it has none).
            var parameter: String
        }

        var errors: [String]
        var warnings: [Warning]
        var longLink: String?
    }

    // MARK: Debug view

    func debug(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        let user = try context.requireConsoleUser()
        let record = try await storedLink(request, context, user: user)
        guard let prefix = user.caller.project.domains.first(where: { $0.description == record.domain }) else {
            throw ConsoleError.notFound("The link's domain is no longer one of the project's.")
        }
        let client = context.detectedClient(request)
        let link = service.resolver.debugLink(for: record, project: user.caller.project, prefix: prefix)
        guard case .debug(var report) = RedirectPlanner.plan(link, project: user.caller.project, client: client) else {
            throw ConsoleError.notFound("The link has no debug view.")
        }
        if !record.isActive(at: Date()) {
            report.stateNotes = [record.disabled ? "This link has been disabled." : "This link has expired."]
        }
        return renderer.html(
            ConsoleDebugPage(
                title: "Debug: \(record.code)", user: ConsolePageUser(user), report: DebugPage(report), back: href(record, user: user)))
    }

    // MARK: QR codes

    func qrCode(_ request: Request, _ context: RelinkRequestContext, png: Bool) async throws -> Response {
        let user = try context.requireConsoleUser()
        try limitHeavy(user)
        let record = try await storedLink(request, context, user: user)
        let parameters = request.uri.queryParameters
        let size = try Self.integer(parameters.get("size"), name: "size", default: 512, in: 64...2048)
        let eccText = (parameters.get("ecc") ?? "M").uppercased()
        guard let correction = QRCode.ErrorCorrection(rawValue: eccText) else {
            throw ConsoleError.badRequest("ecc must be L, M, Q or H; got '\(eccText.leadingScalars(10))'.")
        }
        let code: QRCode
        do {
            code = try QRCode.encode(record.shortLink, correction: correction)
        } catch .libraryMissing(let detail) {
            let message = QRCode.EncodingError.libraryMissing(detail).description
            context.logger.warning("\(message)")
            throw ConsoleError.featureMissing(message)
        } catch {
            throw ConsoleError.badRequest(error.description)
        }
        var headers = ConsoleRenderer.securityHeaders
        headers[.contentSecurityPolicy] = "default-src 'none'; frame-ancestors 'none'"
        let name = Self.fileName(record.code) + (png ? ".png" : ".svg")
        if parameters.get("download") != nil { headers[.contentDisposition] = "attachment; filename=\"\(name)\"" }
        if png {
            let bytes: [UInt8]
            do {
                bytes = try code.png(size: size)
            } catch .libraryMissing(let detail) {
                context.logger.warning("\(detail)")
                throw ConsoleError.featureMissing(detail)
            } catch {
                throw ConsoleError.badRequest(error.description)
            }
            headers[.contentType] = "image/png"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        headers[.contentType] = "image/svg+xml; charset=utf-8"
        return Response(
            status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: code.svg(size: size, title: record.shortLink))))
    }

    // MARK: Helpers

    /// The request's form fields, after checking its CSRF token against the signed-in user's session.
    func userForm(_ request: Request, _ context: RelinkRequestContext) async throws -> (ConsoleUser, [String: String]) {
        let user = try context.requireConsoleUser()
        let form = try await Self.form(request, context)
        guard sameOrigin(request, context), ConsoleSessions.sameToken(form["csrf"], user.session.csrfToken) else {
            context.logger.notice("console form refused: missing or wrong CSRF token", metadata: ["path": "\(request.uri.path)"])
            throw ConsoleError.forgedRequest
        }
        return (user, form)
    }

    /// A urlencoded form body as its fields, by Hummingbird's form decoder.
    static func form(_ request: Request, _ context: RelinkRequestContext) async throws -> [String: String] {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/x-www-form-urlencoded") else {
            throw ConsoleError.badRequest("The console takes forms (application/x-www-form-urlencoded).")
        }
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        guard let text = String(validating: body.readableBytesView, as: UTF8.self) else {
            throw ConsoleError.badRequest("The form is not valid UTF-8.")
        }
        let form: [String: String]
        do {
            form = try Self.formDecoder.decode([String: String].self, from: text)
        } catch {
            // A name given twice, a nested name (`a[b]`), a broken escape: no console form sends them.
            throw ConsoleError.badRequest("The form is not valid URL-encoded text.")
        }
        // The decoder turns escaped bytes that are not UTF-8 (`%FF`, an encoded surrogate) into U+FFFD: such a form
        // is refused as the same bytes unescaped are, not stored with its text replaced.
        for field in text.utf8.split(separator: UInt8(ascii: "&")) where field.contains(UInt8(ascii: "=")) {
            guard PercentEncoding.decode(Substring(field), plusAsSpace: false) != nil else {
                throw ConsoleError.badRequest("The form is not valid UTF-8.")
            }
        }
        return form
    }

    private static let formDecoder = URLEncodedFormDecoder()

    /// Browsers say where a form was posted from (`Sec-Fetch-Site`, `Origin`): another site's is refused even with a
    /// token.
    func sameOrigin(_ request: Request, _ context: RelinkRequestContext) -> Bool {
        if let site = request.headers[HTTPField.Name("Sec-Fetch-Site")!], site != "same-origin", site != "none" { return false }
        guard let origin = request.headers[.origin] else { return true }
        return Self.originKey(origin) == Self.originKey("\(context.origin.scheme)://\(context.origin.host)")
    }

    /// An origin as browsers compare origins: its scheme and its host as requests name it (`DomainURIPrefix.requestHost`:
    /// ASCII case, without the host's final dot and the scheme's own port; a proxy may forward `go.example.com:443`).
    /// Nil for anything else: `null`, a path, any byte that is not ASCII (a look-alike in Unicode case is another origin).
    static func originKey(_ origin: String) -> String? {
        guard origin.utf8.allSatisfy({ $0 < 0x80 }), let prefix = try? DomainURIPrefix(origin), prefix.path.isEmpty else { return nil }
        return "\(prefix.scheme)://\(prefix.requestHost)"
    }

    func isSecure(_ request: Request, _ context: RelinkRequestContext) -> Bool {
        context.origin.scheme == "https"
    }

    /// The signed-in project's link named by the path's code (and `?domain=` when the project has several domains).
    func storedLink(_ request: Request, _ context: RelinkRequestContext, user: ConsoleUser) async throws -> ShortLinkRecord {
        let raw = context.parameters.get("code") ?? ""
        guard raw.utf8.count <= 600, let code = PercentEncoding.decode(Substring(raw), plusAsSpace: false), !code.isEmpty,
            !code.contains("/"), !code.contains("?"), !code.contains("#")
        else { throw ConsoleError.notFound("No such link.") }
        let wanted = request.uri.queryParameters.get("domain")
        if let wanted, !user.caller.project.domains.contains(where: { $0.description == wanted }) {
            throw ConsoleError.notFound("\(wanted.leadingScalars(200)) is not one of the project's domains.")
        }
        for prefix in user.caller.project.domains where wanted == nil || wanted == prefix.description {
            do {
                return try await service.storedLink(prefix.url(path: "/" + code), caller: user.caller)
            } catch let error as APIError where error.status == .notFound || error.status == .badRequest {
                // Not on this domain; another of the project's may have it.
                continue
            }
        }
        throw ConsoleError.notFound("The project has no link \(code).")
    }

    func path(_ record: ShortLinkRecord) -> String {
        "/console/links/" + PercentEncoding.encodeComponent(record.code)
    }

    func domainQuery(_ record: ShortLinkRecord, user: ConsoleUser) -> String {
        user.caller.project.domains.count > 1 ? "?domain=" + PercentEncoding.encodeComponent(record.domain) : ""
    }

    func href(_ record: ShortLinkRecord, user: ConsoleUser) -> String { path(record) + domainQuery(record, user: user) }

    /// The long link a form's values make: on its domain, one of the signed-in project's.
    func longLink(_ form: [String: String], user: ConsoleUser) throws -> String {
        let domain = form["domain"] ?? user.caller.project.domains.first?.description ?? ""
        guard let prefix = user.caller.project.domains.first(where: { $0.description == domain }) else {
            throw APIError.invalidArgument(
                "The domain must be one of the project's: \(user.caller.project.domains.map(\.description).joined(separator: ", ")).")
        }
        let parameters = LinkFormFields.parameters(from: form)
        guard parameters[.link] != nil else { throw APIError.invalidArgument("The deep link (link) is required.") }
        return LongLink(prefix: prefix, parameters: parameters).url
    }

    func warnings(of record: ShortLinkRecord, user: ConsoleUser) -> [ConsoleLinkFormPage.Warning] {
        guard let prefix = user.caller.project.domains.first(where: { $0.description == record.domain }) else { return [] }
        let validation = LinkValidator.validate(
            record.parameters, prefix: prefix, context: service.resolver.validationContext(for: user.caller.project))
        return (validation.errors.map { ConsoleLinkFormPage.Warning(code: $0.code.rawValue, message: $0.message) })
            + validation.warnings.map { ConsoleLinkFormPage.Warning(code: $0.code.rawValue, message: $0.message, parameter: $0.parameter) }
    }

    func formPage(
        user: ConsoleUser, record: ShortLinkRecord?, values: [String: String], errors: [String], warnings: [ConsoleLinkFormPage.Warning]
    ) -> ConsoleLinkFormPage {
        let domains = user.caller.project.domains.map(\.description)
        let chosenDomain = record?.domain ?? values["domain"] ?? domains.first ?? ""
        let suffix = values["suffix"] ?? "UNGUESSABLE"
        return ConsoleLinkFormPage(
            title: record.map { "Edit \($0.code)" } ?? "New link", heading: record.map { "Edit \($0.code)" } ?? "New link",
            user: ConsolePageUser(user), csrf: user.session.csrfToken, isNew: record == nil,
            action: record.map { href($0, user: user) } ?? "/console/links", button: record == nil ? "Create link" : "Save changes",
            domain: chosenDomain, shortLink: record?.shortLink ?? "",
            domains: domains.map { ConsoleLinkFormPage.Option(value: $0, label: $0, selected: $0 == chosenDomain) },
            suffixes: [("UNGUESSABLE", "Unguessable (17 characters)"), ("SHORT", "Short (4 or more characters)")].map {
                ConsoleLinkFormPage.Option(value: $0.0, label: $0.1, selected: $0.0 == suffix)
            },
            customSuffix: values["customSuffix"] ?? "", name: record.map { $0.name ?? "" } ?? values["name"] ?? "",
            groups: LinkFormFields.page(LinkFormFields.parameters(from: values), warnings: warnings, project: user.caller.project),
            errors: errors, hasErrors: !errors.isEmpty,
            warnings: warnings.filter { $0.parameter.map { !LinkFormFields.fieldNames.contains($0) } ?? true })
    }

    /// `disabled`, `expired`, `archived` (in Firebase, before the import: still served) or `active`.
    static func state(_ record: ShortLinkRecord) -> String {
        record.disabled ? "disabled" : !record.isActive(at: Date()) ? "expired" : record.archived ? "archived" : "active"
    }

    static func date(_ date: Date) -> String { String(APITime.format(date).prefix(10)) }

    static func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: ConsoleRenderer.securityHeaders + [.location: location])
    }

    /// A download's file name: the code's letters, digits, `-` and `_`.
    static func fileName(_ code: String) -> String {
        let kept = String(
            String.UnicodeScalarView(
                code.unicodeScalars.filter { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_") }))
        return kept.isEmpty ? "link" : String(kept.prefix(64))
    }

    /// Takes one of the key's tokens for a costly page (QR codes, stats), or answers 429.
    func limitHeavy(_ user: ConsoleUser) throws {
        if case .failure(let error) = heavyLimiter.acquire(
            keyId: user.caller.key.id, limit: Self.heavyLimit, limiting: "QR codes and stats with this key")
        {
            throw error
        }
    }

    static func integer(_ text: String?, name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text, !text.isEmpty else { return value }
        guard text.utf8.count <= 10, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let number = Int(text), range.contains(number) else {
            throw ConsoleError.badRequest(
                "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound); got '\(text.leadingScalars(20))'.")
        }
        return number
    }
}

extension RelinkRequestContext {
    /// The signed-in console user.
    /// - Throws: `ConsoleError.signInRequired` without a live session.
    func requireConsoleUser() throws -> ConsoleUser {
        guard let console else { throw ConsoleError.signInRequired }
        return console
    }
}
