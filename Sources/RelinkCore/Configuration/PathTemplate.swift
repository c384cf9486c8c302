/// A path with named segments, such as `/p/{id}`: literal segments match exactly, `{name}` matches one segment.
public struct PathTemplate: Hashable, Sendable, CustomStringConvertible {
    public enum Segment: Hashable, Sendable {
        case literal(String)
        case variable(String)
    }

    public let segments: [Segment]

    /// Parses a route's path, such as `/p/{id}`.
    /// - Parameter template: literal segments and `{name}` variables, each variable a whole segment.
    /// - Throws: a message naming the problem: no leading `/`, a reserved prefix, a repeated or malformed variable.
    public init(_ template: String) throws(ConfigurationProblem.Message) {
        guard template.hasPrefix("/") else { throw "must start with '/'" }
        guard template != "/" else { throw "'/' serves long links; a route needs at least one segment" }
        guard !template.hasSuffix("/") else { throw "must not end with '/'" }
        // Relink's own paths (`RelinkPaths`): a route there would be shadowed by what Relink serves, or shadow it.
        if let first = template.dropFirst().split(separator: "/", omittingEmptySubsequences: false).first,
            RelinkPaths.reservedCodes.contains(String(first))
        {
            throw "'/\(first)' is reserved for Relink's own pages"
        }
        var segments: [Segment] = []
        var names: Set<String> = []
        for raw in template.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if raw.isEmpty { throw "has an empty segment ('//')" }
            if raw.hasPrefix("{") && raw.hasSuffix("}") {
                let name = String(raw.dropFirst().dropLast())
                guard Self.isVariableName(name) else {
                    throw "'\(raw)' is not a variable: use {name} with letters, digits and '_'"
                }
                guard names.insert(name).inserted else { throw "uses {\(name)} twice" }
                segments.append(.variable(name))
            } else {
                guard raw.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "-._~".unicodeScalars.contains($0) })
                else {
                    throw "segment '\(raw)' may only hold letters, digits and -._~, or be a whole {variable}"
                }
                segments.append(.literal(String(raw)))
            }
        }
        guard case .literal = segments.first else {
            throw "must start with a literal segment (like /p/{id}), or it would shadow every short link"
        }
        self.segments = segments
    }

    static func isVariableName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter || first == "_" else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
    }

    /// The variable names, in order.
    public var variables: [String] {
        segments.compactMap { if case .variable(let name) = $0 { name } else { nil } }
    }

    /// The variables' raw (still percent-encoded) segments when `path` matches, else nil.
    /// - Parameter path: a request path below the domain URI prefix.
    /// - Returns: each variable's segment, or nil when the path does not match.
    public func match(_ path: Substring) -> [String: Substring]? {
        guard path.hasPrefix("/") else { return nil }
        var captures: [String: Substring] = [:]
        var rest = path.dropFirst()
        for (index, segment) in segments.enumerated() {
            let end = rest.firstIndex(of: "/") ?? rest.endIndex
            let piece = rest[..<end]
            if piece.isEmpty { return nil }
            switch segment {
            case .literal(let literal): if piece != literal { return nil }
            case .variable(let name): captures[name] = piece
            }
            let isLast = index == segments.count - 1
            if isLast {
                guard end == rest.endIndex else { return nil }
            } else {
                guard end != rest.endIndex else { return nil }
                rest = rest[rest.index(after: end)...]
            }
        }
        return captures
    }

    /// The same shape with variable names erased, so `/p/{id}` and `/p/{code}` compare equal.
    var shape: [String?] {
        segments.map { if case .literal(let literal) = $0 { literal } else { nil } }
    }

    public var description: String {
        "/"
            + segments.map {
                switch $0 {
                case .literal(let literal): literal
                case .variable(let name): "{\(name)}"
                }
            }
            .joined(separator: "/")
    }
}
