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
                // As written: Android compares schemes and hosts case-sensitively (AppDoctor says so of capitals).
                if let scheme = child.attribute("scheme", namespace: android) { schemes.insert(scheme) }
                if let host = child.attribute("host", namespace: android) { hosts.append(host) }
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
            case .advanced(let pattern): Self.matchesAdvancedGlob(path, pattern)
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

    /// Android's `PatternMatcher.PATTERN_ADVANCED_GLOB`: `.` any character, `[a-z0-9_]` and `[^…]` classes, `\\`
    /// escapes, each followed by `*`, `+`, `{n}` or `{n,m}`. Everything else (`|`, `(`, `?`) is a literal character,
    /// as on a device. Matched by walking the set of reachable positions: never exponential.
    static func matchesAdvancedGlob(_ text: String, _ pattern: String) -> Bool {
        struct Token {
            var matches: (Character) -> Bool
            var minimum: Int
            var maximum: Int
        }
        var tokens: [Token] = []
        var characters = Array(pattern)[...]
        while let first = characters.popFirst() {
            var matches: (Character) -> Bool
            switch first {
            case ".": matches = { _ in true }
            case "\\":
                guard let escaped = characters.popFirst() else { return false }
                matches = { $0 == escaped }
            case "[":
                var negated = false
                if characters.first == "^" {
                    negated = true
                    characters.removeFirst()
                }
                var ranges: [ClosedRange<Character>] = []
                var closed = false
                while let next = characters.popFirst() {
                    if next == "]" {
                        closed = true
                        break
                    }
                    var low = next
                    if low == "\\" {
                        guard let escaped = characters.popFirst() else { return false }
                        low = escaped
                    }
                    if characters.first == "-", characters.count >= 2, characters.dropFirst().first != "]" {
                        characters.removeFirst()
                        let high = characters.removeFirst()
                        guard low <= high else { return false }
                        ranges.append(low...high)
                    } else {
                        ranges.append(low...low)
                    }
                }
                guard closed else { return false }
                matches = { character in ranges.contains { $0.contains(character) } != negated }
            default:
                matches = { $0 == first }
            }
            var (minimum, maximum) = (1, 1)
            switch characters.first {
            case "*":
                characters.removeFirst()
                (minimum, maximum) = (0, Int.max)
            case "+":
                characters.removeFirst()
                (minimum, maximum) = (1, Int.max)
            case "{":
                guard let close = characters.firstIndex(of: "}") else { return false }
                let body = String(characters[characters.index(after: characters.startIndex)..<close])
                characters = characters[characters.index(after: close)...]
                let parts = body.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
                guard let low = parts.first ?? nil, low >= 0 else { return false }
                minimum = low
                maximum = parts.count == 1 ? low : (parts[1] ?? Int.max)
                guard maximum >= minimum else { return false }
            default: break
            }
            tokens.append(Token(matches: matches, minimum: minimum, maximum: maximum))
            guard tokens.count <= 1000 else { return false }
        }
        let input = Array(text)
        var reachable = Set([0])
        for token in tokens {
            var next: Set<Int> = []
            for start in reachable {
                var count = 0
                var position = start
                if token.minimum == 0 { next.insert(position) }
                while count < token.maximum, position < input.count, token.matches(input[position]) {
                    position += 1
                    count += 1
                    if count >= token.minimum { next.insert(position) }
                }
            }
            reachable = next
            if reachable.isEmpty { return false }
        }
        return reachable.contains(input.count)
    }
}
