import CLibXML2
import Foundation
import RelinkCore
import RelinkServer

/// An XML file (a plist, an AndroidManifest.xml) read with libxml2: no network, no DTD loaded, and no document that
/// declares or refers to entities other than XML's five. libxml2 keeps a reference to an entity in the tree
/// (XML_PARSE_NOENT is never set), but reading a value expands it, and one short entity referred to many times makes
/// gigabytes of text from a small file; an entity nothing declares is left out of its value with a warning only.
/// Entitlements and manifests never have either. Nodes are read while the document lives.
public final class XMLDocument {
    private let document: xmlDocPtr

    /// - Throws: `HTMLDocument.ParseError` with libxml2's first error when the bytes are not well-formed XML.
    public init(parsing bytes: some Collection<UInt8>) throws {
        let bytes = Array(bytes)
        guard !bytes.isEmpty, bytes.count <= Int32.max else { throw HTMLDocument.ParseError(reason: "the file is empty or too large") }
        // libxml2 writes some errors (a page's broken encoding) to stderr whatever the options say; a handler of our
        // own on this thread, where the parse runs, keeps them out of the server's log. It also notes an entity no
        // DTD declares: libxml2 only warns of one and leaves it out of the value it is in.
        let notes = ParseNotes()
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(notes).toOpaque()) { context, error in
            guard let context, let error,
                error.pointee.code == Int32(XML_ERR_UNDECLARED_ENTITY.rawValue) || error.pointee.code == Int32(XML_WAR_UNDECLARED_ENTITY.rawValue)
            else { return }
            let notes = Unmanaged<ParseNotes>.fromOpaque(context).takeUnretainedValue()
            if notes.undeclaredEntity == nil {
                notes.undeclaredEntity = (error.pointee.str1.map { String(cString: $0) } ?? "", Int(error.pointee.line))
            }
        }
        defer { withExtendedLifetime(notes) { xmlSetStructuredErrorFunc(nil) { _, _ in } } }
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
        if let (name, line) = notes.undeclaredEntity {
            xmlFreeDoc(document)
            throw HTMLDocument.ParseError(reason: "line \(line): it refers to an entity (&\(name.leadingScalars(40));) where text belongs")
        }
        if Self.declaresEntities(document) {
            xmlFreeDoc(document)
            throw HTMLDocument.ParseError(
                reason: "it declares entities (<!ENTITY …> in its DOCTYPE), which an entitlements file or a manifest never has")
        }
        self.document = document
    }

    /// Whether the DOCTYPE of `document` declares a general or a parameter entity (libxml2 makes their tables for the
    /// first one).
    private static func declaresEntities(_ document: xmlDocPtr) -> Bool {
        guard let subset = document.pointee.intSubset else { return false }
        return subset.pointee.entities != nil || subset.pointee.pentities != nil
    }

    deinit { xmlFreeDoc(document) }

    /// What the error handler noted during a parse.
    private final class ParseNotes {
        var undeclaredEntity: (name: String, line: Int)?
    }

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
