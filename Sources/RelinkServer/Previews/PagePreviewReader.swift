import Foundation
import RelinkCore

/// Reads a page's card from its tags: `og:title`, `og:description` and `og:image` first, then `twitter:*`, then
/// `<title>` and `<meta name=description>`. The image is resolved against the page's `<base href>` and URL and kept
/// only when it is an http(s) URL.
enum PagePreviewReader {
    static func preview(of page: HTMLDocument, url: String, fetchedAt: Date) -> PagePreview {
        var tags: [String: String] = [:]
        var base = URL(string: url)
        var sawBase = false
        for element in page.elements {
            // Only the first <base href> counts, as in browsers.
            if element.name == "base", !sawBase, let href = element.attribute("href") {
                sawBase = true
                if let resolved = URL(string: href, relativeTo: base) { base = resolved.absoluteURL }
            }
            guard element.name == "meta", let content = element.attribute("content") else { continue }
            // Sites put Open Graph tags in `name` as often as in `property`; the first of each wins.
            for key in [element.attribute("property"), element.attribute("name")].compactMap({ $0?.lowercased() }) where tags[key] == nil {
                tags[key] = content
            }
        }
        func first(_ keys: String...) -> String? {
            keys.lazy.compactMap { tags[$0] }.first { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
        }
        let image = [first("og:image", "og:image:url", "og:image:secure_url"), first("twitter:image", "twitter:image:src")]
            .lazy.compactMap { $0 }
            .compactMap { Self.httpURL($0.trimmingCharacters(in: .whitespacesAndNewlines), base: base) }
            .first
        return PagePreview(
            title: first("og:title", "twitter:title") ?? page.title, description: first("og:description", "twitter:description", "description"),
            imageURL: image, pageURL: url, fetchedAt: fetchedAt)
    }

    static func httpURL(_ text: String, base: URL?) -> String? {
        guard let resolved = URL(string: text, relativeTo: base)?.absoluteURL, let scheme = resolved.scheme?.lowercased(),
            scheme == "http" || scheme == "https", resolved.host?.isEmpty == false
        else { return nil }
        return resolved.absoluteString
    }
}
