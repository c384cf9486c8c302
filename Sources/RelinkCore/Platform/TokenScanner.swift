/// Finds every occurrence of a fixed set of ASCII tokens in one pass over the input, ignoring ASCII case:
/// an Aho–Corasick automaton compiled to a dense table over the bytes the tokens use.
struct TokenScanner<Kind: Sendable>: Sendable {
    struct Token: Sendable {
        let bytes: [UInt8]
        let kind: Kind
    }

    let tokens: [Token]
    /// Byte to column; bytes no token uses share column 0, which always leads back to the start.
    private let column: [UInt8]
    private let columns: Int
    /// `state * columns + column` to the next state.
    private let transitions: [Int32]
    /// For each state, the tokens that end there (through failure links too).
    private let outputs: [[Int32]]

    init(_ tokens: [(String, Kind)]) {
        self.tokens = tokens.map { Token(bytes: Array($0.0.lowercased().utf8), kind: $0.1) }
        var column = [UInt8](repeating: 0, count: 256)
        var columns = 1
        for token in self.tokens {
            for byte in token.bytes where column[Int(byte)] == 0 {
                precondition(columns < 255, "too many distinct bytes in tokens")
                column[Int(byte)] = UInt8(columns)
                if byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z") { column[Int(byte - 32)] = UInt8(columns) }
                columns += 1
            }
        }
        // The trie, with -1 for a missing edge.
        var transitions = [Int32](repeating: -1, count: columns)
        var outputs: [[Int32]] = [[]]
        for (index, token) in self.tokens.enumerated() {
            var state = 0
            for byte in token.bytes {
                let slot = state * columns + Int(column[Int(byte)])
                if transitions[slot] < 0 {
                    transitions[slot] = Int32(outputs.count)
                    outputs.append([])
                    transitions += [Int32](repeating: -1, count: columns)
                }
                state = Int(transitions[slot])
            }
            outputs[state].append(Int32(index))
        }
        // Breadth-first: failure links, and every missing edge filled from the failure state's.
        var failure = [Int](repeating: 0, count: outputs.count)
        var queue: [Int] = []
        for c in 0..<columns {
            let next = Int(transitions[c])
            if next < 0 {
                transitions[c] = 0
            } else {
                queue.append(next)
            }
        }
        var head = 0
        while head < queue.count {
            let state = queue[head]
            head += 1
            outputs[state] += outputs[failure[state]]
            for c in 0..<columns {
                let slot = state * columns + c
                let next = Int(transitions[slot])
                let fallback = transitions[failure[state] * columns + c]
                if next < 0 {
                    transitions[slot] = fallback
                } else {
                    failure[next] = Int(fallback)
                    queue.append(next)
                }
            }
        }
        self.column = column
        self.columns = columns
        self.transitions = transitions
        self.outputs = outputs
    }

    /// Calls `found` with each token's index and the offset just past its last byte.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>, _ found: (_ token: Int, _ end: Int) -> Void) {
        var state = 0
        for offset in 0..<bytes.count {
            state = Int(transitions[state * columns + Int(column[Int(bytes[offset])])])
            for token in outputs[state] {
                found(Int(token), offset + 1)
            }
        }
    }
}
