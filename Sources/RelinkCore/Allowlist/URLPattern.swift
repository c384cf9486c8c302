/// An allowlist pattern: a regular expression in the RE2 syntax FDL's allowlists used, matched against the
/// whole URL in time linear in the URL's length (a Thompson NFA), so no pattern can stall a redirect the way
/// a backtracking engine can on `^(a+)+$`.
///
/// Supported: literals and escapes, `.`, classes `[a-z]`/`[^…]`, `\d \w \s \D \W \S`, groups `(…)`, `(?:…)`,
/// `(?P<name>…)`, alternation, `* + ? {n} {n,} {n,m}` (lazy forms too: they match the same under full match),
/// `^`, `$`, and a leading `(?i)`. Not supported (rejected with a message): backreferences, lookaround,
/// word boundaries, Unicode classes.
public struct URLPattern: Sendable, Hashable, CustomStringConvertible {
    public let source: String
    let program: Program

    /// The most states a compiled pattern may have; `{n,m}` copies its operand, so this bounds `(…){1000}`.
    static let maximumProgramSize = 20_000
    static let maximumRepeat = 1000

    /// Why a pattern does not compile, and where.
    public struct SyntaxError: Error, Equatable, CustomStringConvertible {
        public var message: String
        /// The offset in the pattern (in Unicode scalars) where the problem was found.
        public var offset: Int

        public var description: String { "\(message) (at offset \(offset))" }
    }

    /// Compiles `source`. It must be anchored (`^…$`), since patterns always match the whole URL and an
    /// unanchored pattern usually means its author expected a substring match.
    /// - Parameter source: an RE2-syntax pattern, `^…$`.
    /// - Throws: `SyntaxError` with the offset of the first problem, for unanchored or invalid patterns.
    public init(_ source: String) throws(SyntaxError) {
        self.source = source
        var scalars = Array(source.unicodeScalars)
        // RE2 and FDL's examples also put the flag first, `(?i)^https://…$`: the same pattern as `^(?i)https://…$`.
        let flagFirst = Array("(?i)^".unicodeScalars)
        if scalars.starts(with: flagFirst) { scalars = ["^"] + flagFirst.dropLast() + scalars.dropFirst(flagFirst.count) }
        guard scalars.first == "^" else {
            throw SyntaxError(message: "the pattern must be anchored: start it with ^ (patterns match the whole URL)", offset: 0)
        }
        guard scalars.last == "$", !Self.endsWithEscapedDollar(scalars) else {
            // A pattern cut short (`^https://(`) has no `$` either: its syntax error says what is really wrong.
            var parser = Parser(scalars: scalars)
            _ = try parser.parse()
            throw SyntaxError(
                message: "the pattern must be anchored: end it with $ (patterns match the whole URL)", offset: scalars.count)
        }
        var parser = Parser(scalars: scalars)
        let node = try parser.parse()
        self.program = try Compiler.compile(node)
    }

    public var description: String { source }

    public static func == (lhs: URLPattern, rhs: URLPattern) -> Bool { lhs.source == rhs.source }
    public func hash(into hasher: inout Hasher) { hasher.combine(source) }

    /// Whether the whole of `text` matches.
    /// - Parameter text: a whole URL.
    /// - Returns: true when the pattern matches all of it, in time linear in its length.
    public func matches(_ text: String) -> Bool {
        // Most patterns start with a literal such as `https://example\.com`: a byte comparison rules out most
        // non-matches before the NFA runs.
        guard text.utf8.starts(with: program.literalPrefix) else { return false }
        return program.matches(text.unicodeScalars)
    }

    private static func endsWithEscapedDollar(_ scalars: [Unicode.Scalar]) -> Bool {
        var backslashes = 0
        var index = scalars.count - 2
        while index >= 0, scalars[index] == "\\" {
            backslashes += 1
            index -= 1
        }
        return backslashes % 2 == 1
    }
}

// MARK: - Syntax tree

extension URLPattern {
    indirect enum Node {
        case empty
        case set(ScalarSet)
        case start
        case end
        case concat([Node])
        case alternation([Node])
        case repetition(Node, min: Int, max: Int?)
    }

    /// A set of Unicode scalars as sorted, possibly negated, ranges.
    struct ScalarSet: Sendable, Hashable {
        var ranges: [ClosedRange<UInt32>]
        var negated: Bool

        static func single(_ scalar: Unicode.Scalar) -> ScalarSet { ScalarSet(ranges: [scalar.value...scalar.value], negated: false) }
        static let digit = ScalarSet(ranges: [0x30...0x39], negated: false)
        static let word = ScalarSet(ranges: [0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A], negated: false)
        static let space = ScalarSet(ranges: [0x09...0x0D, 0x20...0x20], negated: false)
        /// `.`: anything but a newline, as in RE2.
        static let dot = ScalarSet(ranges: [0x0A...0x0A], negated: true)

        func contains(_ value: UInt32) -> Bool {
            var found = false
            for range in ranges where range.contains(value) {
                found = true
                break
            }
            return found != negated
        }

        /// Adds the other ASCII case of every letter in the set.
        func caseFolded() -> ScalarSet {
            var extra: [ClosedRange<UInt32>] = []
            for range in ranges {
                let lower = range.clamped(to: 0x61...0x7A)
                if !lower.isEmpty, range.overlaps(0x61...0x7A) { extra.append((lower.lowerBound - 32)...(lower.upperBound - 32)) }
                let upper = range.clamped(to: 0x41...0x5A)
                if !upper.isEmpty, range.overlaps(0x41...0x5A) { extra.append((upper.lowerBound + 32)...(upper.upperBound + 32)) }
            }
            return ScalarSet(ranges: ranges + extra, negated: negated)
        }
    }
}

// MARK: - Parser

extension URLPattern {
    struct Parser {
        let scalars: [Unicode.Scalar]
        var position = 0
        var caseInsensitive = false

        init(scalars: [Unicode.Scalar]) {
            self.scalars = scalars
        }

        mutating func parse() throws(SyntaxError) -> Node {
            let node = try parseAlternation()
            if position < scalars.count {
                throw error("unmatched ')'")
            }
            return node
        }

        private func error(_ message: String) -> SyntaxError {
            SyntaxError(message: message, offset: position)
        }

        private var current: Unicode.Scalar? { position < scalars.count ? scalars[position] : nil }

        private func peek(_ offset: Int) -> Unicode.Scalar? {
            position + offset < scalars.count ? scalars[position + offset] : nil
        }

        private mutating func parseAlternation() throws(SyntaxError) -> Node {
            var branches = [try parseConcatenation()]
            while current == "|" {
                position += 1
                branches.append(try parseConcatenation())
            }
            return branches.count == 1 ? branches[0] : .alternation(branches)
        }

        private mutating func parseConcatenation() throws(SyntaxError) -> Node {
            var items: [Node] = []
            while let scalar = current, scalar != "|", scalar != ")" {
                if scalar == "(", peek(1) == "?", peek(2) == "i", peek(3) == ")" {
                    guard items.isEmpty || (items.count == 1 && isStart(items[0])) else {
                        throw error("the (?i) flag is only supported at the start of the pattern")
                    }
                    caseInsensitive = true
                    position += 4
                    continue
                }
                let atom = try parseAtom()
                items.append(try parseQuantifiers(atom))
            }
            switch items.count {
            case 0: return .empty
            case 1: return items[0]
            default: return .concat(items)
            }
        }

        private func isStart(_ node: Node) -> Bool {
            if case .start = node { return true }
            return false
        }

        private mutating func parseQuantifiers(_ atom: Node) throws(SyntaxError) -> Node {
            var node = atom
            var quantified = false
            while let scalar = current {
                var bounds: (Int, Int?)
                switch scalar {
                case "*":
                    bounds = (0, nil)
                    position += 1
                case "+":
                    bounds = (1, nil)
                    position += 1
                case "?":
                    bounds = (0, 1)
                    position += 1
                case "{":
                    guard let parsed = try parseBraces() else { return node }
                    bounds = parsed
                default:
                    return node
                }
                if quantified { throw error("a quantifier cannot follow another quantifier") }
                switch node {
                case .start, .end, .empty: throw error("nothing to repeat")
                default: break
                }
                quantified = true
                if current == "?" { position += 1 }  // lazy: same set of full matches
                node = .repetition(node, min: bounds.0, max: bounds.1)
            }
            return node
        }

        /// `{n}`, `{n,}` or `{n,m}`; nil (and nothing consumed) when the brace is a literal, as in RE2.
        private mutating func parseBraces() throws(SyntaxError) -> (Int, Int?)? {
            var index = position + 1
            func number() -> Int? {
                let start = index
                while index < scalars.count, scalars[index].isASCIIDigit, index - start < 5 { index += 1 }
                return index > start ? Int(String(String.UnicodeScalarView(scalars[start..<index]))) : nil
            }
            guard let low = number() else { return nil }
            var high: Int? = low
            if index < scalars.count, scalars[index] == "," {
                index += 1
                high = number()
            }
            guard index < scalars.count, scalars[index] == "}" else { return nil }
            if low > Self.maximumRepeatCount || (high ?? 0) > Self.maximumRepeatCount {
                throw error("repeat counts above \(URLPattern.maximumRepeat) are not supported")
            }
            if let high, high < low { throw error("bad repeat range {\(low),\(high)}") }
            position = index + 1
            return (low, high)
        }

        private static var maximumRepeatCount: Int { URLPattern.maximumRepeat }

        private mutating func parseAtom() throws(SyntaxError) -> Node {
            guard let scalar = current else { throw error("unexpected end of pattern") }
            switch scalar {
            case "(":
                position += 1
                if current == "?" {
                    if peek(1) == ":" {
                        position += 2
                    } else if peek(1) == "P" && peek(2) == "<" || peek(1) == "<" && peek(2) != "=" && peek(2) != "!" {
                        guard let close = scalars[position...].firstIndex(of: ">") else { throw error("unterminated group name") }
                        position = close + 1
                    } else {
                        throw error("lookaround and inline flags other than a leading (?i) are not supported")
                    }
                }
                let inner = try parseAlternation()
                guard current == ")" else { throw error("missing ')'") }
                position += 1
                return inner
            case "[":
                return .set(try parseClass())
            case ".":
                position += 1
                return .set(.dot)
            case "^":
                position += 1
                return .start
            case "$":
                position += 1
                return .end
            case "\\":
                return .set(try fold(parseEscape(inClass: false)))
            case "*", "+", "?":
                throw error("nothing to repeat")
            default:
                position += 1
                return .set(fold(.single(scalar)))
            }
        }

        private func fold(_ set: ScalarSet) -> ScalarSet {
            caseInsensitive ? set.caseFolded() : set
        }

        private mutating func parseEscape(inClass: Bool) throws(SyntaxError) -> ScalarSet {
            position += 1
            guard let scalar = current else { throw error("trailing backslash") }
            position += 1
            switch scalar {
            case "d": return .digit
            case "D": return ScalarSet(ranges: ScalarSet.digit.ranges, negated: true)
            case "w": return .word
            case "W": return ScalarSet(ranges: ScalarSet.word.ranges, negated: true)
            case "s": return .space
            case "S": return ScalarSet(ranges: ScalarSet.space.ranges, negated: true)
            case "n": return .single("\n")
            case "t": return .single("\t")
            case "r": return .single("\r")
            case "f": return .single("\u{0C}")
            case "v": return .single("\u{0B}")
            default:
                if scalar.isASCIILetter || scalar.isASCIIDigit {
                    position -= 2
                    throw error("the escape \\\(scalar) is not supported (no backreferences, word boundaries or Unicode classes)")
                }
                return .single(scalar)
            }
        }

        private mutating func parseClass() throws(SyntaxError) -> ScalarSet {
            let start = position
            position += 1
            var negated = false
            if current == "^" {
                negated = true
                position += 1
            }
            var ranges: [ClosedRange<UInt32>] = []
            var first = true
            while let scalar = current, scalar != "]" || first {
                first = false
                if scalar == "[" && peek(1) == ":" { throw error("POSIX classes like [:alpha:] are not supported") }
                var low: UInt32
                if scalar == "\\" {
                    let escaped = try parseEscape(inClass: true)
                    if escaped.negated || escaped.ranges.count != 1 || escaped.ranges[0].count != 1 {
                        guard !escaped.negated else { throw error("negated class escapes are not supported inside [...]") }
                        ranges += escaped.ranges
                        continue
                    }
                    low = escaped.ranges[0].lowerBound
                } else {
                    low = scalar.value
                    position += 1
                }
                if current == "-", let next = peek(1), next != "]" {
                    position += 1
                    var high: UInt32
                    if next == "\\" {
                        let escaped = try parseEscape(inClass: true)
                        guard !escaped.negated, escaped.ranges.count == 1, escaped.ranges[0].count == 1 else {
                            throw error("bad class range")
                        }
                        high = escaped.ranges[0].lowerBound
                    } else {
                        high = next.value
                        position += 1
                    }
                    guard low <= high else { throw error("bad class range") }
                    ranges.append(low...high)
                } else {
                    ranges.append(low...low)
                }
            }
            guard current == "]" else {
                position = start
                throw error("missing ']'")
            }
            position += 1
            return fold(ScalarSet(ranges: ranges, negated: negated))
        }
    }
}

// MARK: - Compiler and matcher

extension URLPattern {
    enum Instruction: Sendable, Hashable {
        case set(ScalarSet)
        case split(Int, Int)
        case jump(Int)
        case assertStart
        case assertEnd
        case match
    }

    struct Program: Sendable, Hashable {
        var instructions: [Instruction]
        /// UTF-8 bytes every match starts with (empty when the pattern does not start with a plain literal).
        var literalPrefix: [UInt8] = []

        /// Runs the NFA over `input`, keeping each state at most once per position: O(input × states), and no
        /// heap allocation (the state sets live in a temporary buffer).
        func matches(_ input: String.UnicodeScalarView) -> Bool {
            let count = input.count
            let states = instructions.count
            return withUnsafeTemporaryAllocation(of: Int.self, capacity: states * 5) { buffer in
                buffer.initialize(repeating: 0)
                var current = StateSet(dense: buffer.baseAddress!, sparse: buffer.baseAddress! + states)
                var next = StateSet(dense: buffer.baseAddress! + 2 * states, sparse: buffer.baseAddress! + 3 * states)
                let stack = buffer.baseAddress! + 4 * states
                addState(0, at: 0, count: count, to: &current, stack: stack)
                var offset = 0
                for scalar in input {
                    if current.isEmpty { return false }
                    for member in 0..<current.count {
                        let state = current.dense[member]
                        if case .set(let set) = instructions[state], set.contains(scalar.value) {
                            addState(state + 1, at: offset + 1, count: count, to: &next, stack: stack)
                        }
                    }
                    swap(&current, &next)
                    next.count = 0
                    offset += 1
                }
                for member in 0..<current.count where instructions[current.dense[member]] == .match {
                    return true
                }
                return false
            }
        }

        /// Adds `state` and everything reachable from it without consuming input. A state enters the set once
        /// per position, so the explicit stack never holds more than `instructions.count` entries.
        private func addState(_ state: Int, at offset: Int, count: Int, to set: inout StateSet, stack: UnsafeMutablePointer<Int>) {
            var depth = 0
            stack[depth] = state
            depth += 1
            while depth > 0 {
                depth -= 1
                let state = stack[depth]
                guard set.insert(state) else { continue }
                switch instructions[state] {
                case .split(let first, let second):
                    stack[depth] = second
                    stack[depth + 1] = first
                    depth += 2
                case .jump(let target):
                    stack[depth] = target
                    depth += 1
                case .assertStart:
                    if offset == 0 {
                        stack[depth] = state + 1
                        depth += 1
                    }
                case .assertEnd:
                    if offset == count {
                        stack[depth] = state + 1
                        depth += 1
                    }
                case .set, .match:
                    break
                }
            }
        }
    }

    /// A sparse set of state numbers with O(1) insert, membership and clear, over caller-provided memory.
    struct StateSet {
        let dense: UnsafeMutablePointer<Int>
        let sparse: UnsafeMutablePointer<Int>
        var count = 0

        init(dense: UnsafeMutablePointer<Int>, sparse: UnsafeMutablePointer<Int>) {
            self.dense = dense
            self.sparse = sparse
        }

        var isEmpty: Bool { count == 0 }

        /// Inserts `value`; false when it was already there.
        mutating func insert(_ value: Int) -> Bool {
            let index = sparse[value]
            if index < count && dense[index] == value { return false }
            sparse[value] = count
            dense[count] = value
            count += 1
            return true
        }
    }

    enum Compiler {
        static func compile(_ node: Node) throws(SyntaxError) -> Program {
            var instructions: [Instruction] = []
            try emit(node, into: &instructions)
            instructions.append(.match)
            return Program(instructions: instructions, literalPrefix: literalPrefix(node))
        }

        /// The literal a match must start with: the single characters right after a leading `^`.
        static func literalPrefix(_ node: Node) -> [UInt8] {
            guard case .concat(let items) = node, case .start = items.first else { return [] }
            var prefix: [UInt8] = []
            for item in items.dropFirst() {
                guard case .set(let set) = item, !set.negated, set.ranges.count == 1, set.ranges[0].count == 1,
                    let scalar = Unicode.Scalar(set.ranges[0].lowerBound)
                else { break }
                prefix += Array(String(Character(scalar)).utf8)
            }
            return prefix
        }

        private static func emit(_ node: Node, into code: inout [Instruction]) throws(SyntaxError) {
            guard code.count <= URLPattern.maximumProgramSize else {
                throw SyntaxError(message: "the pattern is too large (too many repeated parts)", offset: 0)
            }
            switch node {
            case .empty:
                break
            case .set(let set):
                code.append(.set(set))
            case .start:
                code.append(.assertStart)
            case .end:
                code.append(.assertEnd)
            case .concat(let items):
                for item in items { try emit(item, into: &code) }
            case .alternation(let branches):
                // split L1, next; L1: a; jump end; next: split L2, …
                var jumps: [Int] = []
                for (index, branch) in branches.enumerated() {
                    if index < branches.count - 1 {
                        let split = code.count
                        code.append(.split(split + 1, 0))
                        try emit(branch, into: &code)
                        jumps.append(code.count)
                        code.append(.jump(0))
                        code[split] = .split(split + 1, code.count)
                    } else {
                        try emit(branch, into: &code)
                    }
                }
                for jump in jumps { code[jump] = .jump(code.count) }
            case .repetition(let inner, let min, let max):
                for _ in 0..<min { try emit(inner, into: &code) }
                if let max {
                    var splits: [Int] = []
                    for _ in min..<max {
                        splits.append(code.count)
                        code.append(.split(code.count + 1, 0))
                        try emit(inner, into: &code)
                    }
                    for split in splits { code[split] = .split(split + 1, code.count) }
                } else {
                    let loop = code.count
                    code.append(.split(loop + 1, 0))
                    try emit(inner, into: &code)
                    code.append(.jump(loop))
                    code[loop] = .split(loop + 1, code.count)
                }
            }
        }
    }
}
