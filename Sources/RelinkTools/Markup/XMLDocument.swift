import CLibXML2
import Foundation
import RelinkServer

/// An XML file (a plist, an AndroidManifest.xml) read with libxml2: no network, no DTD loaded, no external entity,
/// entities left unexpanded (XML_PARSE_NOENT is never set). Nodes are read while the document lives.
public final class XMLDocument {
    private let document: xmlDocPtr

    /// - Throws: `HTMLDocument.ParseError` with libxml2's first error when the bytes are not well-formed XML.
    public init(parsing bytes: some Collection<UInt8>) throws {
        let bytes = Array(bytes)
        guard !bytes.isEmpty, bytes.count <= Int32.max else { throw HTMLDocument.ParseError(reason: "the file is empty or too large") }
        // libxml2 writes some errors (a page's broken encoding) to stderr whatever the options say; a handler of our
        // own on this thread, where the parse runs, keeps them out of the server's log.
        xmlSetStructuredErrorFunc(nil) { _, _ in }
        xmlResetLastError()
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue)
        guard
            let document = bytes.withUnsafeBufferPointer({ buffer in
                buffer.withMemoryRebound(to: CChar.self) { xmlReadMemory($0.baseAddress, Int32($0.count), "file.xml", nil, options) }
            })
        else {
            let message = xmlGetLastError().flatMap { error in
                error.pointee.message.map {
                    "line \(error.pointee.line): " + String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines)
                }
            }
            throw HTMLDocument.ParseError(reason: "not well-formed XML" + (message.map { " (\($0))" } ?? ""))
        }
        self.document = document
    }

    deinit { xmlFreeDoc(document) }

    public var root: XMLNode? { xmlDocGetRootElement(document).map { XMLNode(pointer: $0, owner: self) } }

    /// The element nodes `expression` selects, with `namespaces` (prefix → URI) registered for it.
    public func nodes(_ expression: String, namespaces: [String: String] = [:]) throws -> [XMLNode] {
        guard let context = xmlXPathNewContext(document) else { throw HTMLDocument.ParseError(reason: "XPath is not available") }
        defer { xmlXPathFreeContext(context) }
        for (prefix, uri) in namespaces { xmlXPathRegisterNs(context, prefix, uri) }
        guard let result = xmlXPathEvalExpression(expression, context) else {
            throw HTMLDocument.ParseError(reason: "the XPath expression \(expression) is not valid")
        }
        defer { xmlXPathFreeObject(result) }
        guard let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else { return [] }
        return (0..<Int(set.pointee.nodeNr)).compactMap { index in
            table[index].flatMap { $0.pointee.type == XML_ELEMENT_NODE ? XMLNode(pointer: $0, owner: self) : nil }
        }
    }
}

/// An element of an `XMLDocument` (which it keeps alive).
public struct XMLNode {
    let pointer: xmlNodePtr
    let owner: XMLDocument

    public var name: String { String(cString: pointer.pointee.name) }

    /// The 1-based line of the element in its file.
    public var line: Int { Int(xmlGetLineNo(pointer)) }

    /// An attribute's value: without `namespace`, an attribute of no namespace; with it, of that namespace URI.
    public func attribute(_ name: String, namespace: String? = nil) -> String? {
        let value = namespace.map { xmlGetNsProp(pointer, name, $0) } ?? xmlGetNoNsProp(pointer, name)
        guard let value else { return nil }
        defer { free(value) }
        return String(cString: value)
    }

    /// The element children, in order.
    public var children: [XMLNode] {
        var result: [XMLNode] = []
        var child = pointer.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE { result.append(XMLNode(pointer: current, owner: owner)) }
            child = current.pointee.next
        }
        return result
    }

    /// The text inside, whitespace trimmed.
    public var text: String {
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { free(content) }
        return String(cString: content).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
