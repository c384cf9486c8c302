/// A destination parameter that the project's allowlist does not allow.
public struct AllowlistViolation: Hashable, Sendable, CustomStringConvertible {
    public var parameter: LinkParameter
    public var value: String
    /// The rule it broke: the project's patterns, or the implicit rule when it has none.
    public var rule: String

    /// FDL's sentence, with the parameter and the rule named.
    public var description: String {
        "We could not match param '\(value)' (\(parameter.name)) with allowlisted URL patterns in this project: \(rule). [https://support.google.com/firebase/answer/9021429]"
    }
}

extension Allowlist {
    /// The destinations among `parameters` that this project may not send a click to. Fallbacks (`afl`, `ifl`,
    /// `ipfl`, `ofl`) that are not http(s) URLs are left to the warnings: the redirect never uses them. `link` and
    /// `al` are different: apps receive them as their deep link (claims, re-opens), so they must be http(s) and
    /// allowed, or an app would be handed `javascript:`, `intent:` or another app's scheme.
    /// `checked` is a value already known to pass (the project's desktop fallback, checked when the configuration
    /// loaded), so clicks do not check it again.
    /// - Parameters:
    ///   - parameters: the link's parameters, defaults applied.
    ///   - projectDomains: the project's domain URI prefixes.
    ///   - checked: a value known to pass, skipped.
    /// - Returns: one violation per refused parameter, in `LinkParameter.destinations` order; empty when all pass.
    public func violations(
        in parameters: LinkParameters, projectDomains: [DomainURIPrefix], checked: String? = nil
    ) -> [AllowlistViolation] {
        LinkParameter.destinations.compactMap { parameter in
            guard let value = parameters[parameter], value != checked else { return nil }
            guard let uri = AbsoluteURI(value), uri.isHTTP else {
                guard LinkParameter.deepLinks.contains(parameter) else { return nil }
                return AllowlistViolation(parameter: parameter, value: value, rule: "a deep link must be an http(s) URL")
            }
            guard !allows(uri, projectDomains: projectDomains) else { return nil }
            return AllowlistViolation(parameter: parameter, value: value, rule: ruleDescription(projectDomains))
        }
    }

    func ruleDescription(_ projectDomains: [DomainURIPrefix]) -> String {
        if patterns.isEmpty {
            let hosts = Set(projectDomains.map(\.host)).union(Self.storeHosts).sorted()
            return "no patterns are configured, so only these hosts are allowed: \(hosts.joined(separator: ", "))"
        }
        return patterns.map(\.source).joined(separator: ", ")
    }
}
