import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import Mustache

/// Renders Relink's HTML pages with the headers every page carries: a strict Content-Security-Policy that allows
/// only the pages' own inline stylesheet (by hash) and https images, never caching, never sniffing.
struct PageRenderer: Sendable {
    enum Page: String, CaseIterable {
        case appPreview, socialPreview, message, debug

        var source: String {
            switch self {
            case .appPreview: PageTemplates.appPreview
            case .socialPreview: PageTemplates.socialPreview
            case .message: PageTemplates.message
            case .debug: PageTemplates.debug
            }
        }
    }

    static let robotsTag = HTTPField.Name("X-Robots-Tag")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    let library: MustacheLibrary
    let contentSecurityPolicy: String
    /// The page of every iPhone click, made from pieces cut once from its template.
    let appPreview: CompiledAppPreviewPage

    init() throws {
        HTMLEscaper.ContentType.registered
        var templates: [String: MustacheTemplate] = [:]
        for page in Page.allCases {
            // Every page escapes by UTF-8 byte (see `HTMLEscaper`), never with Mustache's own escaping.
            templates[page.rawValue] = try MustacheTemplate(string: HTMLEscaper.ContentType.pragma + page.source)
        }
        library = MustacheLibrary(templates: templates)
        appPreview = CompiledAppPreviewPage(library: library)
        let styleHash = Data(SHA256.hash(data: Data(PageTemplates.style.utf8))).base64EncodedString()
        let scriptHash = Data(SHA256.hash(data: Data(PageTemplates.previewScript.utf8))).base64EncodedString()
        contentSecurityPolicy =
            "default-src 'none'; style-src 'sha256-\(styleHash)'; script-src 'sha256-\(scriptHash)'; img-src https: data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    /// `model`'s page, with the security headers; `noIndex` asks search engines not to list it.
    func html<Model: PageModel>(_ model: Model, status: HTTPResponse.Status = .ok, noIndex: Bool = true) -> Response {
        page(model, status: status, noIndex: noIndex).response
    }

    /// `model`'s page as a click's answer (see `html`).
    func page<Model: PageModel>(_ model: Model, status: HTTPResponse.Status = .ok, noIndex: Bool = true) -> ClickAnswer {
        let body = (model as? AppPreviewPage).map(appPreview.render) ?? library.render(model, withTemplate: Model.page.rawValue) ?? ""
        var headers: HTTPFields = [
            .contentType: "text/html; charset=utf-8",
            .contentSecurityPolicy: contentSecurityPolicy,
            .xContentTypeOptions: "nosniff",
            .cacheControl: "no-store",
            Self.referrerPolicy: "no-referrer",
        ]
        if noIndex { headers[Self.robotsTag] = "noindex" }
        return ClickAnswer(status: status, headers: headers, body: ByteBuffer(string: body))
    }

    /// A plain page with a title and paragraphs: errors, not-found and gone pages.
    func message(_ title: String, _ paragraphs: [String], status: HTTPResponse.Status) -> Response {
        messagePage(title, paragraphs, status: status).response
    }

    /// A plain page as a click's answer (see `message`).
    func messagePage(_ title: String, _ paragraphs: [String], status: HTTPResponse.Status) -> ClickAnswer {
        page(MessagePage(title: title, paragraphs: paragraphs), status: status)
    }
}
