import RelinkServer

/// A value of an XML property list, as far as `relink doctor` reads one.
enum PlistValue: Equatable {
    case string(String)
    case array([PlistValue])
    case dictionary([String: PlistValue])
    case bool(Bool)
    case other

    /// The top-level dictionary of `<plist><dict>…</dict></plist>`.
    static func dictionary(_ document: XMLDocument) throws -> [String: PlistValue] {
        guard let root = document.root, root.name == "plist", let top = root.children.first, top.name == "dict",
            case .dictionary(let dictionary) = value(top, depth: 0)
        else { throw HTMLDocument.ParseError(reason: "not a property list with a dictionary at its top") }
        return dictionary
    }

    static func value(_ node: XMLNode, depth: Int) -> PlistValue {
        // Entitlements are two levels deep; a deeper file is not one.
        guard depth < 32 else { return .other }
        switch node.name {
        case "string": return .string(node.text)
        case "true": return .bool(true)
        case "false": return .bool(false)
        case "array": return .array(node.children.map { value($0, depth: depth + 1) })
        case "dict":
            var result: [String: PlistValue] = [:]
            var key: String?
            for child in node.children {
                if child.name == "key" {
                    key = child.text
                } else if let current = key {
                    result[current] = value(child, depth: depth + 1)
                    key = nil
                }
            }
            return .dictionary(result)
        default: return .other
        }
    }
}
