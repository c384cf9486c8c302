import RelinkServer

/// A page's elements as libxml2's HTML parser sees them (`HTMLDocument`), compared by what the template decides:
/// element names and attribute names, whatever the values are. Tests compare these to find markup that an
/// escaping bug let through.
struct PageSkeleton: Equatable {
    struct Element: Equatable, CustomStringConvertible {
        var name: String
        var attributes: [(name: String, value: String)]

        static func == (a: Element, b: Element) -> Bool {
            a.name == b.name && a.attributes.map(\.name) == b.attributes.map(\.name)
        }

        var description: String { "<\(name) \(attributes.map(\.name).joined(separator: " "))>" }
    }

    var elements: [Element]

    /// Element names with their attribute names.
    var skeleton: [String] { elements.map(\.description) }

    init(parsing html: String) throws {
        elements = try HTMLDocument(parsing: html.utf8, encoding: "UTF-8").elements.map {
            Element(name: $0.name, attributes: $0.attributes)
        }
    }
}
