import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Mustache
import RelinkCore

/// Renders the console's pages with their security headers: a Content-Security-Policy that allows only the
/// console's own stylesheet and script (by hash), images and requests from the console itself and forms posted
/// back to it; never cached, never framed.
struct ConsoleRenderer: Sendable {
    enum Page: String, CaseIterable {
        case signIn, links, linkForm, link, stats, debug, message

        var source: String {
            switch self {
            case .signIn: ConsoleTemplates.signIn
            case .links: ConsoleTemplates.links
            case .linkForm: ConsoleTemplates.linkForm
            case .link: ConsoleTemplates.link
            case .stats: ConsoleTemplates.stats
            case .debug: ConsoleTemplates.debug
            case .message: ConsoleTemplates.message
            }
        }
    }

    let library: MustacheLibrary
    let contentSecurityPolicy: String

    init() throws {
        HTMLEscaper.ContentType.registered
        var templates: [String: MustacheTemplate] = [:]
        // Every template, partials too, escapes by UTF-8 byte (`HTMLEscaper`), never with Mustache's own escaping.
        for (name, source) in [("header", ConsoleTemplates.header), ("footer", ConsoleTemplates.footer)]
            + Page.allCases.map({ ($0.rawValue, $0.source) })
        {
            templates[name] = try MustacheTemplate(string: HTMLEscaper.ContentType.pragma + source)
        }
        library = MustacheLibrary(templates: templates)
        let styleHash = Data(SHA256.hash(data: Data(ConsoleTemplates.style.utf8))).base64EncodedString()
        let scriptHash = Data(SHA256.hash(data: Data(ConsoleTemplates.script.utf8))).base64EncodedString()
        contentSecurityPolicy =
            "default-src 'none'; style-src 'sha256-\(styleHash)'; script-src 'sha256-\(scriptHash)'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    static let securityHeaders: HTTPFields = [
        .xContentTypeOptions: "nosniff",
        .cacheControl: "no-store",
        PageRenderer.referrerPolicy: "same-origin",
        PageRenderer.robotsTag: "noindex",
        HTTPField.Name("X-Frame-Options")!: "DENY",
    ]

    func html<Model: ConsolePageModel>(_ model: Model, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) -> Response {
        let body = library.render(model, withTemplate: Model.page.rawValue) ?? ""
        var headers = Self.securityHeaders
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.contentSecurityPolicy] = contentSecurityPolicy
        headers.append(contentsOf: extra)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}

/// What a console template renders: one stored property per `{{tag}}` (read by swift-mustache through reflection),
/// and what every page's header and footer read.
protocol ConsolePageModel: Sendable {
    static var page: ConsoleRenderer.Page { get }
    var title: String { get }
    var user: ConsolePageUser? { get }
}

/// The signed-in user as the header shows it: the project and the CSRF token of the sign-out form.
struct ConsolePageUser: Sendable {
    var project: String
    var csrf: String
}

extension ConsolePageUser {
    init(_ user: ConsoleUser) {
        self.init(project: user.caller.project.id, csrf: user.session.csrfToken)
    }
}

/// The stylesheet and script every console page inlines (allowed by the CSP's hashes).
struct ConsoleAssets: Sendable {
    let style = ConsoleTemplates.style
    let script = ConsoleTemplates.script
}
