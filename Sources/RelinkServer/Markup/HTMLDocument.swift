import CLibXML2
import Foundation

/// A page as libxml2's HTML parser reads it (bytes, as browsers do, broken markup repaired the way they repair it):
/// its elements in document order, each with its attributes' names and decoded values, and the text of its
/// `<title>`. The parser is told never to touch the network; its HTML mode loads no DTD and no external entity.
public struct HTMLDocument: Sendable {
    public struct Element: Sendable {
        /// The element's name, lowercased by the parser.
        public var name: String
        public var attributes: [(name: String, value: String)]

        /// The first attribute called `name` (names are compared in ASCII lowercase, as HTML does).
        public func attribute(_ name: String) -> String? {
            attributes.first { $0.name.lowercased() == name }?.value
        }
    }

    public var elements: [Element]
    /// The text of the first `<title>`, whitespace trimmed; nil when there is none.
    public var title: String?

    /// The first element called `name` whose attribute `attribute` is `value`.
    public func element(_ name: String, where attribute: String, is value: String) -> Element? {
        elements.first { $0.name == name && $0.attribute(attribute) == value }
    }

    /// Parses `bytes`.
    /// - Parameters:
    ///   - bytes: the page.
    ///   - encoding: the encoding the HTTP response named; nil to let the parser read the page's `<meta charset>`
    ///     (and fall back to its default).
    /// - Throws: `ParseError` when libxml2 builds no document at all (empty input, an encoding it does not know).
    public init(parsing bytes: some Collection<UInt8>, encoding: String? = nil) throws {
        let bytes = Array(bytes)
        guard bytes.count <= Int32.max else { throw ParseError(reason: "the page is too large") }
        // libxml2 writes some errors (a page's broken encoding) to stderr whatever the options say; a handler of our
        // own on this thread, where the parse runs, keeps them out of the server's log.
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        // No network, no errors printed on stderr.
        let options = Int32(HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue)
        guard
            let document = bytes.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { htmlReadMemory($0.baseAddress, Int32($0.count), nil, encoding, options) }
            })
        else { throw ParseError(reason: bytes.isEmpty ? "the page is empty" : "libxml2 could not read the page") }
        defer { xmlFreeDoc(document) }
        var elements: [Element] = []
        var title: String?
        // An explicit stack, not recursion: a hostile page nests as deep as its size allows.
        var stack: [xmlNodePtr] = xmlDocGetRootElement(document).map { [$0] } ?? []
        while let node = stack.popLast() {
            if let next = node.pointee.next { stack.append(next) }
            guard node.pointee.type == XML_ELEMENT_NODE else { continue }
            let name = String(cString: node.pointee.name)
            var attributes: [(String, String)] = []
            var attribute = node.pointee.properties
            while let property = attribute {
                attributes.append((String(cString: property.pointee.name), Self.text(property.pointee.children, in: document)))
                attribute = property.pointee.next
            }
            elements.append(Element(name: name, attributes: attributes))
            if name == "title", title == nil, let content = xmlNodeGetContent(node) {
                title = String(cString: content).trimmingCharacters(in: .whitespacesAndNewlines)
                free(content)  // libxml2's default xmlFree
            }
            if let child = node.pointee.children { stack.append(child) }
        }
        self.elements = elements
        self.title = title
    }

    private static func text(_ nodes: xmlNodePtr?, in document: xmlDocPtr) -> String {
        guard let text = xmlNodeListGetString(document, nodes, 1) else { return "" }
        defer { free(text) }
        return String(cString: text)
    }

    public struct ParseError: Error, CustomStringConvertible {
        public var reason: String
        public var description: String { reason }

        public init(reason: String) {
            self.reason = reason
        }
    }

    /// The `charset` of a Content-Type, for the parser; nil to let the page say.
    public static func charset(ofContentType contentType: String?) -> String? {
        guard let contentType else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "charset" else { continue }
            return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\" "))
        }
        return nil
    }
}
