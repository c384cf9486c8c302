import Foundation

/// The fields a request body may have, read from the OpenAPI document, their one source: an object schema with
/// `"additionalProperties": false` names every field it takes, and a body with any other is refused, as FDL refused
/// one ("Unknown name"). Without it a misspelt optional field (`maxclicks`) would mint a link without its limit.
/// Schemas that stay open (the attribution requests, which FDL's SDKs fill with fields of their own) check nothing.
package enum RequestBodyShape {
    /// What a schema says of the fields below it.
    indirect enum Shape: Sendable {
        /// An object: its fields, and whether it takes no others.
        case object(fields: [String: Shape], closed: Bool)
        case array(Shape)
        /// Anything else, or a schema this reading does not follow (oneOf of several objects): not checked.
        case unchecked
    }

    /// An unknown field: its name, and the path of the object it is in (`dynamicLinkInfo.androidInfo`; empty at the top).
    package struct UnknownField: Equatable {
        package var name: String
        package var path: String
    }

    /// The document's component schemas by name, read once.
    static let shapes: [String: Shape] = {
        guard let document = try? JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any],
            let components = document["components"] as? [String: Any], let schemas = components["schemas"] as? [String: Any]
        else { return [:] }
        return schemas.mapValues { shape(of: $0, schemas: schemas, depth: 0) }
    }()

    private static func shape(of schema: Any, schemas: [String: Any], depth: Int) -> Shape {
        // References nest a few levels in this document; the bound only keeps a reference cycle finite.
        guard depth < 16, let schema = schema as? [String: Any] else { return .unchecked }
        if let reference = schema["$ref"] as? String {
            let name = String(reference.dropFirst("#/components/schemas/".count))
            return schemas[name].map { shape(of: $0, schemas: schemas, depth: depth + 1) } ?? .unchecked
        }
        if let properties = schema["properties"] as? [String: Any] {
            return .object(
                fields: properties.mapValues { shape(of: $0, schemas: schemas, depth: depth + 1) },
                closed: schema["additionalProperties"] as? Bool == false)
        }
        if let items = schema["items"] { return .array(shape(of: items, schemas: schemas, depth: depth + 1)) }
        return .unchecked
    }

    /// What keeps a body from the schema `name`.
    package enum Problem: Equatable {
        /// A field the schema does not take.
        case unknownField(UnknownField)
        /// JSON this check cannot read, though the decoder might (a number past a double, a lone surrogate in a
        /// string no field is decoded from): refused, or a field hidden beside it would pass unchecked.
        case unreadable
    }

    /// What keeps `body` (UTF-8 JSON) from the schema `name`, or nil; nil too for a schema that is not closed.
    package static func problem(in body: Data, schema name: String) -> Problem? {
        guard let shape = shapes[name], isClosed(shape) else { return nil }
        guard let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else { return .unreadable }
        var found: [UnknownField] = []
        unknownFields(in: value, shape: shape, path: "", into: &found, limit: 1)
        return found.first.map { .unknownField($0) }
    }

    /// Whether `shape` takes no other fields somewhere: only then is a body checked (and one the check cannot read
    /// refused); an open schema is left to the decoder.
    private static func isClosed(_ shape: Shape) -> Bool {
        switch shape {
        case .unchecked: false
        case .array(let items): isClosed(items)
        case .object(let fields, let closed): closed || fields.values.contains(where: isClosed)
        }
    }

    /// The first field of `body` that the schema `name` does not take, or nil.
    package static func unknownField(in body: Data, schema name: String) -> UnknownField? {
        unknownFields(in: body, schema: name, limit: 1).first
    }

    /// The fields of `body` that the schema `name` does not take, in a stable order, at most `limit` of them (a file's
    /// check lists them all at once; the API names the first, as FDL did).
    package static func unknownFields(in body: Data, schema name: String, limit: Int = 20) -> [UnknownField] {
        guard let shape = shapes[name], let value = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]) else {
            return []
        }
        var found: [UnknownField] = []
        unknownFields(in: value, shape: shape, path: "", into: &found, limit: limit)
        return found
    }

    private static func unknownFields(in value: Any, shape: Shape, path: String, into found: inout [UnknownField], limit: Int) {
        guard found.count < limit else { return }
        switch shape {
        case .unchecked:
            return
        case .array(let items):
            guard let array = value as? [Any] else { return }
            for (index, element) in array.enumerated() {
                unknownFields(in: element, shape: items, path: path + "[\(index)]", into: &found, limit: limit)
            }
        case .object(let fields, let closed):
            guard let object = value as? [String: Any] else { return }
            // Sorted: the same body names the same fields every time.
            for key in object.keys.sorted() where found.count < limit {
                guard let field = fields[key] else {
                    if closed { found.append(UnknownField(name: key, path: path)) }
                    continue
                }
                unknownFields(in: object[key]!, shape: field, path: path.isEmpty ? key : path + "." + key, into: &found, limit: limit)
            }
        }
    }
}
