import CLibXML2
import Foundation

/// A page as an HTML parser sees it (libxml2's, which reads bytes, as browsers do): its elements in document
/// order, each with its attributes' names and decoded values. Tests compare these to find markup that an
/// escaping bug let through.
struct HTMLDocument: Equatable {
    struct Element: Equatable, CustomStringConvertible {
        var name: String
        var attributes: [(name: String, value: String)]

        static func == (a: Element, b: Element) -> Bool {
            a.name == b.name && a.attributes.map(\.name) == b.attributes.map(\.name)
        }

        var description: String { "<\(name) \(attributes.map(\.name).joined(separator: " "))>" }
    }

    var elements: [Element]

    /// Element names with their attribute names: what the template decides, whatever the values are.
    var skeleton: [String] { elements.map(\.description) }

    init(parsing html: String) throws {
        let bytes = Array(html.utf8)
        // No network, no errors printed; libxml2's HTML parser never loads DTDs or external entities.
        let options = Int32(HTML_PARSE_NONET.rawValue | HTML_PARSE_NOERROR.rawValue | HTML_PARSE_NOWARNING.rawValue)
        guard
            let document = bytes.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { htmlReadMemory($0.baseAddress, Int32($0.count), nil, "UTF-8", options) }
            })
        else { throw ParseError() }
        defer { xmlFreeDoc(document) }
        var elements: [Element] = []
        func walk(_ node: xmlNodePtr?) {
            var node = node
            while let current = node {
                if current.pointee.type == XML_ELEMENT_NODE {
                    var attributes: [(String, String)] = []
                    var attribute = current.pointee.properties
                    while let property = attribute {
                        let name = String(cString: property.pointee.name)
                        var value = ""
                        if let text = xmlNodeListGetString(document, property.pointee.children, 1) {
                            value = String(cString: text)
                            free(text)  // libxml2's default xmlFree
                        }
                        attributes.append((name, value))
                        attribute = property.pointee.next
                    }
                    elements.append(Element(name: String(cString: current.pointee.name), attributes: attributes))
                }
                walk(current.pointee.children)
                node = current.pointee.next
            }
        }
        walk(xmlDocGetRootElement(document))
        self.elements = elements
    }

    struct ParseError: Error {}
}
