import Foundation

/// An `<intent-filter>` of an Android manifest, as App Links read it: its `<data>` elements combine, every scheme
/// with every host with every path.
struct IntentFilter {
    var line: Int
    var autoVerify: Bool
    var actions: Set<String>
    var categories: Set<String>
    var schemes: Set<String>
    var hosts: [String]
    var paths: [PathRule]

    enum PathRule {
        case exact(String)
        case prefix(String)
        case suffix(String)
        case pattern(String)
        case advanced(String)
    }

    init(_ node: XMLNode) {
        let android = AppDoctor.androidNamespace
        line = node.line
        autoVerify = node.attribute("autoVerify", namespace: android) == "true"
        var actions: Set<String> = []
        var categories: Set<String> = []
        var schemes: Set<String> = []
        var hosts: [String] = []
        var paths: [PathRule] = []
        for child in node.children {
            switch child.name {
            case "action": child.attribute("name", namespace: android).map { _ = actions.insert($0) }
            case "category": child.attribute("name", namespace: android).map { _ = categories.insert($0) }
            case "data":
                if let scheme = child.attribute("scheme", namespace: android) { schemes.insert(scheme.lowercased()) }
                if let host = child.attribute("host", namespace: android) { hosts.append(host.lowercased()) }
                if let path = child.attribute("path", namespace: android) { paths.append(.exact(path)) }
                if let path = child.attribute("pathPrefix", namespace: android) { paths.append(.prefix(path)) }
                if let path = child.attribute("pathSuffix", namespace: android) { paths.append(.suffix(path)) }
                if let path = child.attribute("pathPattern", namespace: android) { paths.append(.pattern(path)) }
                if let path = child.attribute("pathAdvancedPattern", namespace: android) { paths.append(.advanced(path)) }
            default: continue
            }
        }
        (self.actions, self.categories, self.schemes, self.hosts, self.paths) = (actions, categories, schemes, hosts, paths)
    }

    static let view = "android.intent.action.VIEW"
    static let browsable = "android.intent.category.BROWSABLE"
    static let defaultCategory = "android.intent.category.DEFAULT"

    var isBrowsableView: Bool { missingForLinks.isEmpty }

    /// What App Links need that the filter lacks.
    var missingForLinks: [String] {
        var missing: [String] = []
        if !actions.contains(Self.view) { missing.append("<action android:name=\"\(Self.view)\"/>") }
        if !categories.contains(Self.browsable) { missing.append("<category android:name=\"\(Self.browsable)\"/>") }
        if !categories.contains(Self.defaultCategory) { missing.append("<category android:name=\"\(Self.defaultCategory)\"/>") }
        return missing
    }

    /// A filter without hosts matches none for App Links; `*.example.com` matches its subdomains.
    func covers(host: String) -> Bool {
        hosts.contains { pattern in
            pattern.hasPrefix("*.") ? host.hasSuffix(pattern.dropFirst(1)) : pattern == host || pattern == "*"
        }
    }

    /// A filter without path attributes matches every path.
    func covers(path: String) -> Bool {
        guard !paths.isEmpty else { return true }
        return paths.contains { rule in
            switch rule {
            case .exact(let exact): path == exact
            case .prefix(let prefix): path.hasPrefix(prefix)
            case .suffix(let suffix): path.hasSuffix(suffix)
            case .pattern(let pattern): Self.matchesSimpleGlob(path, pattern)
            case .advanced(let pattern): (try? Regex("^(?:" + pattern + ")$")).map { path.wholeMatch(of: $0) != nil } ?? false
            }
        }
    }

    /// Android's `PatternMatcher.PATTERN_SIMPLE_GLOB`: `.` any character, `x*` zero or more of the character before
    /// (`.*` any run), `\\` escapes the next character.
    static func matchesSimpleGlob(_ text: String, _ pattern: String) -> Bool {
        var tokens: [(character: Character?, repeated: Bool)] = []  // nil character: any
        var characters = Array(pattern)[...]
        while let first = characters.popFirst() {
            var token: Character? = first == "." ? nil : first
            if first == "\\", let escaped = characters.popFirst() { token = escaped }
            if characters.first == "*" {
                characters.removeFirst()
                tokens.append((token, true))
            } else {
                tokens.append((token, false))
            }
        }
        let input = Array(text)
        // Dynamic programming over (token, position): patterns are short, paths too.
        var reachable = Set([0])
        for token in tokens {
            var next: Set<Int> = []
            for position in reachable.sorted() {
                if token.repeated {
                    var index = position
                    next.insert(index)
                    while index < input.count, token.character == nil || input[index] == token.character {
                        index += 1
                        next.insert(index)
                    }
                } else if position < input.count, token.character == nil || input[position] == token.character {
                    next.insert(position + 1)
                }
            }
            reachable = next
            if reachable.isEmpty { return false }
        }
        return reachable.contains(input.count)
    }
}
