extension RelinkConfiguration {
    /// One `clickTracking` entry: `{"host": "click.example.com", "upstream": "https://…", "paths": ["/ls/click*"]}`,
    /// or `"preset": "sendgrid"` for a service's documented paths instead of `paths`, and `"hostHeader": "tracking"`
    /// (the default) or `"upstream"`, and `"associationFiles": "relink"` (the default: generated from the project's apps
    /// and the paths) or `"upstream"` (the service's own, passed through).
    static func readClickTrackingHost(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> ClickTrackingHost? {
        guard let fields = reader.object(value, at: path, keys: ["host", "upstream", "paths", "preset", "hostHeader", "associationFiles"]) else {
            return nil
        }
        let problemsBefore = reader.problems.count
        let host = reader.string(fields, "host", required: true) { host in
            // A host name as a Host header carries it, with an optional port: the same checks as a link domain's.
            guard let parsed = try? DomainURIPrefix("https://" + host), parsed.path.isEmpty, parsed.hostAndPort == host.lowercased()
            else { return "must be a host name like click.example.com (no scheme, path or user information)" }
            if let problem = parsed.hostSpellingProblem { return "\(problem)" }
            // Matched against the Host of requests over https or http, which drops a final dot and either's own port.
            let asked = (try? DomainURIPrefix("http://" + host))?.requestHost ?? parsed.requestHost
            guard parsed.requestHost == parsed.hostAndPort, asked == parsed.hostAndPort else {
                return
                    "is asked for as \(asked == parsed.hostAndPort ? parsed.requestHost : asked) (browsers drop a host's final dot and the scheme's own port); write it so"
            }
            return nil
        }
        var upstream: DomainURIPrefix?
        if let text = reader.string(fields, "upstream", required: true) {
            do {
                let parsed = try DomainURIPrefix(text)
                if !parsed.path.isEmpty {
                    reader.report(fields.path("upstream"), "'\(text)' must be an origin, https://host[:port], without a path")
                } else if let problem = parsed.hostSpellingProblem {
                    // The fetcher would map another spelling to the plain host, past the check against Relink's own.
                    reader.report(fields.path("upstream"), "'\(text)' \(problem)")
                } else {
                    upstream = parsed
                }
            } catch {
                reader.report(fields.path("upstream"), error.description)
            }
        }
        let known = ClickTrackingPreset.allCases.map(\.rawValue)
        let preset = reader.string(fields, "preset") { name in
            known.contains(name) ? nil : "must be one of \(known.joined(separator: ", ")) (or give the paths)"
        }.flatMap(ClickTrackingPreset.init(rawValue:))
        if fields["preset"] != nil && fields["paths"] != nil {
            reader.report(fields.path("paths"), "give either paths or a preset, not both")
        }
        var paths = preset?.paths ?? []
        for (element, elementPath) in reader.array(fields, "paths", required: fields["preset"] == nil, nonEmpty: true) {
            guard let text = reader.string(element, at: elementPath) else { continue }
            if let problem = ClickTrackingHost.problem(path: text) {
                reader.report(elementPath, problem)
            } else if paths.contains(text) {
                reader.report(elementPath, "'\(text)' is listed twice")
            } else {
                paths.append(text)
            }
        }
        if paths.count > 32 { reader.report(fields.path("paths"), "at most 32 tracking paths") }
        let hostHeader = reader.string(fields, "hostHeader") { header in
            ["tracking", "upstream"].contains(header) ? nil : "must be 'tracking' (the tracking domain, the default) or 'upstream'"
        }
        let associationFiles = reader.string(fields, "associationFiles") { source in
            ["relink", "upstream"].contains(source)
                ? nil : "must be 'relink' (generated from the project's apps, the default) or 'upstream' (the email service's own)"
        }
        guard reader.problems.count == problemsBefore, let host, let upstream else { return nil }
        return ClickTrackingHost(
            host: host.lowercased(), upstream: upstream, paths: paths, sendsTrackingHost: hostHeader != "upstream",
            associationFilesFromUpstream: associationFiles == "upstream")
    }
}
