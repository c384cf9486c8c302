import Foundation
import RelinkCore

/// How values are kept in either database, in one place: parameters as sorted JSON, dates as seconds since 1970,
/// languages as a comma-separated list.
enum StoreCoding {
    static let parametersEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    static func encode(_ parameters: LinkParameters) throws -> String {
        String(decoding: try parametersEncoder.encode(parameters), as: UTF8.self)
    }

    /// One decoder for every read (it keeps no state between calls), instead of one made per link.
    static let parametersDecoder = JSONDecoder()

    static func decode(_ text: String) throws -> LinkParameters {
        try stored("parameters") { try parametersDecoder.decode(StoredParameters.self, from: Data(text.utf8)).parameters }
    }

    /// Stored parameters read key by key: what `LinkParameters` decodes through a `[String: String]`, without the
    /// dictionary, which cost more, once per link read from PostgreSQL
    /// (docs/performance.md#stored-parameters-read-key-by-key).
    /// A key given twice keeps its first value, as the dictionary did.
    private struct StoredParameters: Decodable {
        var parameters = LinkParameters()

        private struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Name.self)
            for name in container.allKeys {
                guard let parameter = LinkParameter(name: name.stringValue) else {
                    throw DecodingError.dataCorruptedError(
                        forKey: name, in: container, debugDescription: "'\(name.stringValue)' is not a link parameter")
                }
                parameters[parameter] = try container.decode(String.self, forKey: name)
            }
        }
    }

    /// A stored column's JSON decoded, or `StoreError.unavailable` (503): a row the database holds but Relink cannot
    /// read (edited by hand, damaged) is the store's problem, never a malformed request's (a decoding error would
    /// answer the API with 400).
    static func stored<T>(_ column: String, _ decode: () throws -> T) throws -> T {
        do {
            return try decode()
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError.unavailable("a link's stored \(column) cannot be read (not JSON of the expected shape)")
        }
    }

    /// A stored page preview: JSON, its date as seconds since 1970 (so a record equals its reread).
    static func encode(preview: PagePreview) throws -> String {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(preview), as: UTF8.self)
    }

    static func decode(preview text: String) throws -> PagePreview {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return try stored("preview") { try decoder.decode(PagePreview.self, from: Data(text.utf8)) }
    }

    /// A link's rules: JSON, keys sorted.
    static func encode(rules: LinkRules?) throws -> String? {
        guard let rules, !rules.isEmpty else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(rules), as: UTF8.self)
    }

    static func decode(rules text: String) throws -> LinkRules {
        try stored("rules") { try JSONDecoder().decode(LinkRules.self, from: Data(text.utf8)) }
    }

    /// A date as the database gives it back (seconds since 1970 as a double), so a record equals its reread.
    static func stored(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970)
    }

    static func encode(languages: [String]) -> String {
        languages.joined(separator: ",")
    }

    static func decode(languages text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }
}
