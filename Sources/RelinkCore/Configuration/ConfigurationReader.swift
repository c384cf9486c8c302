/// Walks a JSON document and collects every problem with its JSON path, instead of stopping at the first.
struct ConfigurationReader {
    private(set) var problems: [ConfigurationProblem] = []

    mutating func report(_ path: String, _ message: String) {
        problems.append(ConfigurationProblem(path: path, message: message))
    }

    /// The members of a JSON object that allows exactly `keys`.
    struct Fields {
        let values: [String: JSONValue]
        let path: String

        func path(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

        /// The value of `key`; nil when absent or null (null means "not set" throughout routes.json).
        subscript(_ key: String) -> JSONValue? {
            guard let value = values[key], value != .null else { return nil }
            return value
        }
    }

    /// Reads an object, reporting every key that is not one of `keys`.
    mutating func object(_ value: JSONValue, at path: String, keys: [String]) -> Fields? {
        guard case .object(let members) = value else {
            report(path, "must be an object, got \(value.kind)")
            return nil
        }
        for key in members.keys.sorted() where !keys.contains(key) {
            let hint = keys.first { $0.lowercased() == key.lowercased() }.map { " (did you mean '\($0)'?)" } ?? ""
            report(path.isEmpty ? key : "\(path).\(key)", "unknown key\(hint); allowed keys: \(keys.joined(separator: ", "))")
        }
        return Fields(values: members, path: path)
    }

    mutating func string(
        _ fields: Fields, _ key: String, required: Bool = false,
        check: (String) -> ConfigurationProblem.Message? = { _ in nil }
    ) -> String? {
        guard let value = fields[key] else {
            if required { report(fields.path(key), "is required") }
            return nil
        }
        guard case .string(let string) = value else {
            report(fields.path(key), "must be a string, got \(value.kind)")
            return nil
        }
        if string.isEmpty {
            report(fields.path(key), "must not be empty (leave the key out instead)")
            return nil
        }
        if let problem = check(string) {
            report(fields.path(key), problem.text)
            return nil
        }
        return string
    }

    mutating func integer(_ fields: Fields, _ key: String, in range: ClosedRange<Int>) -> Int? {
        guard let value = fields[key] else { return nil }
        guard case .number(let number) = value, number.rounded() == number, let integer = Int(exactly: number) else {
            if case .number(let number) = value, number.isFinite, number.rounded() == number {
                // A whole number past what an Int holds (1e300): out of range, not a fraction.
                report(fields.path(key), "must be from \(range.lowerBound) to \(range.upperBound), got \(number)")
            } else {
                report(fields.path(key), "must be a whole number, got \(value.kind == "a number" ? "a fraction" : value.kind)")
            }
            return nil
        }
        guard range.contains(integer) else {
            report(fields.path(key), "must be from \(range.lowerBound) to \(range.upperBound), got \(integer)")
            return nil
        }
        return integer
    }

    mutating func bool(_ fields: Fields, _ key: String) -> Bool? {
        guard let value = fields[key] else { return nil }
        guard case .bool(let bool) = value else {
            report(fields.path(key), "must be true or false, got \(value.kind)")
            return nil
        }
        return bool
    }

    /// The elements of an array, each with its path (`key[3]`).
    mutating func array(
        _ fields: Fields, _ key: String, required: Bool = false, nonEmpty: Bool = false
    )
        -> [(value: JSONValue, path: String)]
    {
        guard let value = fields[key] else {
            if required { report(fields.path(key), "is required") }
            return []
        }
        guard case .array(let elements) = value else {
            report(fields.path(key), "must be an array, got \(value.kind)")
            return []
        }
        if nonEmpty && elements.isEmpty { report(fields.path(key), "must list at least one entry") }
        return elements.enumerated().map { ($0.element, "\(fields.path(key))[\($0.offset)]") }
    }

    /// A string element of an array.
    mutating func string(_ value: JSONValue, at path: String) -> String? {
        guard case .string(let string) = value else {
            report(path, "must be a string, got \(value.kind)")
            return nil
        }
        return string
    }
}
