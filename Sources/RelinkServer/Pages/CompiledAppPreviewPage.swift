import Mustache

/// The app preview page (an iPhone's click) made without running the template engine per click: the template is
/// rendered once for each combination of its optional parts, with a marker in place of each value, and cut at the
/// markers; a click joins the pieces with its values, escaped by `HTMLEscaper` as the template would. The output is
/// the template's, byte for byte (`PageModelTests.compiledPreviewPageIsTheTemplates` compares them), at a fraction
/// of the cost: swift-mustache walks its context stack for every tag of every render.
struct CompiledAppPreviewPage: Sendable {
    private enum Piece: Sendable {
        case text(String)
        case value(Int)
    }

    /// Per combination of the optional values present (description, image, claim link, click id: one bit each).
    private let variants: [[Piece]]

    init(library: MustacheLibrary) {
        variants = (0..<16).map { mask in
            let page = AppPreviewPage(
                appName: Self.marker(0), title: Self.marker(1), description: mask & 1 == 0 ? nil : Self.marker(2),
                imageURL: mask & 2 == 0 ? nil : Self.marker(3), openURL: Self.marker(4), webURL: Self.marker(5),
                claimURL: mask & 4 == 0 ? nil : Self.marker(6), clickID: mask & 8 == 0 ? nil : Self.marker(7), beaconPath: Self.marker(8))
            return Self.pieces(library.render(page, withTemplate: PageRenderer.Page.appPreview.rawValue) ?? "")
        }
    }

    /// `\u{1}` index `\u{2}`: characters no page text has and the escaper keeps as they are.
    static func marker(_ index: Int) -> String { "\u{1}\(index)\u{2}" }

    private static func pieces(_ rendered: String) -> [Piece] {
        var pieces: [Piece] = []
        var text = ""
        var scalars = rendered.unicodeScalars[...]
        while let scalar = scalars.popFirst() {
            guard scalar == "\u{1}", let end = scalars.firstIndex(of: "\u{2}"), let index = Int(String(scalars[..<end])) else {
                text.unicodeScalars.append(scalar)
                continue
            }
            if !text.isEmpty { pieces.append(.text(text)) }
            text = ""
            pieces.append(.value(index))
            scalars = scalars[scalars.index(after: end)...]
        }
        if !text.isEmpty { pieces.append(.text(text)) }
        return pieces
    }

    func render(_ page: AppPreviewPage) -> String {
        let values = [
            page.appName, page.title, page.description ?? "", page.imageURL ?? "", page.openURL, page.webURL, page.claimURL ?? "",
            page.clickID ?? "", page.beaconPath,
        ]
        let mask =
            (page.description == nil ? 0 : 1) | (page.imageURL == nil ? 0 : 2) | (page.claimURL == nil ? 0 : 4) | (page.clickID == nil ? 0 : 8)
        var output = ""
        output.reserveCapacity(8192)
        for piece in variants[mask] {
            switch piece {
            case .text(let text): output += text
            case .value(let index): output += HTMLEscaper.escape(values[index])
            }
        }
        return output
    }
}
