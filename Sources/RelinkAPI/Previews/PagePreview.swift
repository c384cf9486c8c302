import Foundation

/// What a short link's destination page says about itself (Open Graph and Twitter tags, then `<title>` and
/// `<meta name=description>`), fetched once and stored with the link. Crawlers are shown it where the link sets no
/// `st`, `sd` or `si` of its own; the project's defaults come after it.
public struct PagePreview: Codable, Hashable, Sendable {
    public var title: String?
    public var description: String?
    /// An absolute http(s) URL.
    public var imageURL: String?
    /// The page the values were read from, after redirects.
    public var pageURL: String?
    public var fetchedAt: Date
    /// Why the last fetch found nothing; the values are then those of the fetch before it, if any.
    public var failure: String?

    /// Longest stored title, description and image URL, in Unicode scalars (a page cannot make a card heavy).
    public static let maximumTitle = 300
    public static let maximumDescription = 1000
    public static let maximumURL = 2048

    public init(
        title: String? = nil, description: String? = nil, imageURL: String? = nil, pageURL: String? = nil, fetchedAt: Date,
        failure: String? = nil
    ) {
        self.title = Self.clipped(title, to: Self.maximumTitle)
        self.description = Self.clipped(description, to: Self.maximumDescription)
        self.imageURL = imageURL.flatMap { $0.unicodeScalars.count <= Self.maximumURL ? $0 : nil }
        self.pageURL = pageURL.flatMap { $0.unicodeScalars.count <= Self.maximumURL ? $0 : nil }
        self.fetchedAt = fetchedAt
        self.failure = failure
    }

    /// The bidirectional embedding, override and isolate controls (and marks).
    public static let bidiControls: Set<UInt32> = [0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]

    /// Whether the page gave nothing a card can show.
    public var isEmpty: Bool { title == nil && description == nil && imageURL == nil }

    /// Whitespace runs folded to one space, control characters dropped, cut at `limit` scalars (with an ellipsis);
    /// nil when nothing is left.
    static func clipped(_ text: String?, to limit: Int) -> String? {
        guard let text else { return nil }
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            // Control characters, and the bidirectional overrides that make a title read backwards.
            if scalar.properties.generalCategory == .control || Self.bidiControls.contains(scalar.value) { continue }
            if pendingSpace {
                scalars.append(" ")
                pendingSpace = false
            }
            scalars.append(scalar)
            if scalars.count >= limit {
                scalars.append("…")
                break
            }
        }
        return scalars.isEmpty ? nil : String(scalars)
    }
}
