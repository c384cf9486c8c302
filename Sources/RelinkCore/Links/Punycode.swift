/// RFC 3492's Punycode, decoding only: whether a host's `xn--` label is an A-label a browser can read. A browser that
/// cannot decode one refuses the URL, so a link domain spelt with it would never be asked for.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700

    /// The scalars `encoded` (a label without its `xn--`) stands for; nil when it is not Punycode.
    static func decode(_ encoded: Substring) -> [Unicode.Scalar]? {
        let bytes = Array(encoded.utf8)
        var output: [UInt32] = []
        var position = 0
        if let delimiter = bytes.lastIndex(of: UInt8(ascii: "-")) {
            for byte in bytes[..<delimiter] {
                guard byte < 0x80 else { return nil }
                output.append(UInt32(byte))
            }
            position = delimiter + 1
        }
        var code = 128
        var index = 0
        var bias = 72
        while position < bytes.count {
            let before = index
            var weight = 1
            var k = base
            while true {
                guard position < bytes.count, let digit = digit(bytes[position]) else { return nil }
                position += 1
                let (product, productOverflow) = digit.multipliedReportingOverflow(by: weight)
                let (sum, sumOverflow) = index.addingReportingOverflow(product)
                guard !productOverflow, !sumOverflow else { return nil }
                index = sum
                let threshold = k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
                if digit < threshold { break }
                let (next, overflow) = weight.multipliedReportingOverflow(by: base - threshold)
                guard !overflow else { return nil }
                weight = next
                k += base
            }
            let count = output.count + 1
            bias = adapt(index - before, count: count, first: before == 0)
            // RFC 3492 6.2: fail on overflow, before the add (an index near Int.max would trap).
            guard index / count <= 0x10FFFF - code else { return nil }
            code += index / count
            index %= count
            output.insert(UInt32(code), at: index)
            index += 1
        }
        var scalars: [Unicode.Scalar] = []
        for value in output {
            guard let scalar = Unicode.Scalar(value) else { return nil }
            scalars.append(scalar)
        }
        return scalars
    }

    /// Whether `label` (with its `xn--`, in any case) is one browsers take: the Punycode of a name that is not all
    /// ASCII, already in the form UTS 46 maps names to, since browsers map a name before they look at it and a mapped
    /// name is another label. That form is NFKC with case folding (Unicode's `Changes_When_NFKC_Casefolded`: upper
    /// case, compatibility forms such as fullwidth letters or `⒈`, characters ignored such as variation selectors),
    /// except the four characters non-transitional processing keeps (ß, ς, ZWNJ, ZWJ). Also refused: a label that
    /// starts with a combining mark, controls, other format characters, private use, unassigned code points,
    /// noncharacters, spaces and the ideographic full stops. An approximation of UTS 46's tables: it refuses no name
    /// they allow, and not every name they refuse (the bidi rule is not checked).
    static func isALabel(_ label: Substring) -> Bool {
        // Browsers lower-case a host's ASCII letters first, the Punycode's literal ones included.
        let encoded = Substring(String(decoding: label.utf8.dropFirst(4).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self))
        guard let scalars = decode(encoded), scalars.contains(where: { !$0.isASCII }) else { return false }
        if let first = scalars.first, [.nonspacingMark, .spacingMark, .enclosingMark].contains(first.properties.generalCategory) {
            return false
        }
        return scalars.allSatisfy { scalar in
            if scalar.isASCII {
                return (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") || scalar == "-"
            }
            if deviations.contains(scalar.value) { return true }
            if scalar.properties.changesWhenNFKCCaseFolded || scalar.properties.isNoncharacterCodePoint { return false }
            if [0x3002, 0xFF0E, 0xFF61].contains(scalar.value) { return false }
            switch scalar.properties.generalCategory {
            case .control, .format, .surrogate, .privateUse, .unassigned, .spaceSeparator, .lineSeparator, .paragraphSeparator: return false
            default: return true
            }
        }
    }

    /// ß, ς, ZWNJ and ZWJ: case folding or NFKC changes them, but browsers keep them (UTS 46 "deviation" characters,
    /// valid in non-transitional processing).
    private static let deviations: Set<UInt32> = [0xDF, 0x3C2, 0x200C, 0x200D]

    private static func digit(_ byte: UInt8) -> Int? {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"): Int(byte - UInt8(ascii: "a"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): Int(byte - UInt8(ascii: "A"))
        case UInt8(ascii: "0")...UInt8(ascii: "9"): Int(byte - UInt8(ascii: "0")) + 26
        default: nil
        }
    }

    private static func adapt(_ delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }
}
