import Foundation

/// Versions and device models read out of mobile User-Agents, for matching a click to an install later.
enum UserAgentFields {
    /// `17.2` from `CPU iPhone OS 17_2 like Mac OS X` (or `iOS 17.2` in app User-Agents).
    static func iOSVersion(_ userAgent: String) -> String? {
        for marker in ["iphone os ", "cpu os ", "ios "] {
            if let range = userAgent.range(of: marker, options: .caseInsensitive),
                let version = dottedNumber(after: range.upperBound, in: userAgent)
            {
                return version
            }
        }
        return nil
    }

    /// `14` from `Android 14;`, `4.0.4` from `Android 4.0.4;`.
    static func androidVersion(_ userAgent: String) -> String? {
        guard let range = userAgent.range(of: "android ", options: .caseInsensitive) else { return nil }
        return dottedNumber(after: range.upperBound, in: userAgent)
    }

    /// The model an Android User-Agent names: `Pixel 7` in `(Linux; Android 14; Pixel 7)`, `L-01E` in
    /// `(Linux; U; Android 4.0.4; en-us; L-01E Build/IMM76D)`. Nil for Chrome's reduced `K`.
    static func androidModel(_ userAgent: String) -> String? {
        guard let start = userAgent.range(of: "android", options: .caseInsensitive) else { return nil }
        let rest = userAgent[start.lowerBound...]
        let group = rest[..<(rest.firstIndex(of: ")") ?? rest.endIndex)]
        for field in group.split(separator: ";").dropFirst() {
            var model = field.trimmingCharacters(in: .whitespaces)
            if isLocale(model) || ["u", "wv", "mobile", "tablet"].contains(model.lowercased()) { continue }
            if let build = model.range(of: " build", options: .caseInsensitive) {
                model = String(model[..<build.lowerBound])
            }
            model = model.trimmingCharacters(in: .whitespaces)
            return model.isEmpty || model == "K" ? nil : model
        }
        return nil
    }

    private static func isLocale(_ field: String) -> Bool {
        let parts = field.split(whereSeparator: { $0 == "-" || $0 == "_" })
        guard let language = parts.first, language.count == 2, language.allSatisfy(\.isLetter), parts.count <= 2 else {
            return false
        }
        return parts.count == 1 || (2...4).contains(parts[1].count)
    }

    /// Digits separated by `.` or `_`, as `17.2`.
    private static func dottedNumber(after index: String.Index, in text: String) -> String? {
        let tail = text[index...].prefix { $0.isASCII && ($0.isNumber || $0 == "." || $0 == "_") }
        let parts = tail.split(whereSeparator: { $0 == "." || $0 == "_" })
        guard let first = parts.first, first.first?.isNumber == true else { return nil }
        return parts.prefix(3).joined(separator: ".")
    }
}
