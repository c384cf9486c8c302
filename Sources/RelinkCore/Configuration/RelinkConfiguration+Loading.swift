import Foundation
import RelinkAPI

extension RelinkConfiguration {
    /// Reads routes.json. Every problem is reported, one per line with its JSON path; unknown keys are errors.
    /// - Parameter data: the file's bytes.
    /// - Throws: `ConfigurationError` listing every problem with its JSON path.
    public init(json data: Data) throws(ConfigurationError) {
        let root: JSONValue
        // UTF-8 only, or the check of keys given twice below would pass over the file.
        guard JSONShape.isUTF8Text(data) else {
            throw ConfigurationError(problems: [ConfigurationProblem(path: "", message: "not UTF-8 JSON text (save the file as UTF-8)")])
        }
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw ConfigurationError(problems: [ConfigurationProblem(path: "", message: "not valid JSON: \(Self.syntaxError(in: data))")])
        }
        // A key twice would mean one thing here (the decoder keeps the first) and another to jq or a reviewer's tools
        // (most keep the last): a strict allowlist could be read while a loose one applies.
        if let problem = JSONShape.problem(data, subject: "the file") {
            throw ConfigurationError(problems: [ConfigurationProblem(path: "", message: "\(problem)")])
        }
        var reader = ConfigurationReader()
        var projects: [Project] = []
        if let fields = reader.object(root, at: "", keys: ["projects"]) {
            for (value, path) in reader.array(fields, "projects", required: true, nonEmpty: true) {
                if let project = Self.readProject(value, at: path, reader: &reader) {
                    projects.append(project)
                }
            }
        }
        Self.checkAcrossProjects(projects, reader: &reader)
        guard reader.problems.isEmpty else { throw ConfigurationError(problems: reader.problems) }
        self.init(projects: projects)
        for files in AssociationFiles.generate(for: self) where files.appleAppSiteAssociation.count > AssociationFiles.appleSizeLimit {
            let index = projects.firstIndex { $0.id == files.projectId } ?? 0
            reader.report(
                "projects[\(index)].ios",
                "the apple-app-site-association for \(files.host) would be \(files.appleAppSiteAssociation.count) bytes; Apple reads at most \(AssociationFiles.appleSizeLimit)"
            )
        }
        guard reader.problems.isEmpty else { throw ConfigurationError(problems: reader.problems) }
    }

    /// Where JSON is broken, as "line L, column C: …" (JSONDecoder does not say; JSONSerialization gives an offset).
    private static func syntaxError(in data: Data) -> String {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return "the document is not a JSON value"
        } catch {
            let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String ?? "\(error)"
            guard let range = text.range(of: "around character "),
                let offset = Int(text[range.upperBound...].prefix(while: \.isASCIIDigitCharacter))
            else { return text }
            let before = data.prefix(offset)
            let line = before.count(where: { $0 == UInt8(ascii: "\n") }) + 1
            let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
            return "line \(line), column \(column): \(text.replacingOccurrences(of: " around character \(offset)", with: ""))"
        }
    }

    // MARK: Projects

    private static func readProject(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> Project? {
        let keys = [
            "id", "domains", "ios", "android", "allowlist", "defaults", "routes", "deferred", "rateLimit", "socialPreview", "rules",
            "clickTracking",
        ]
        guard let fields = reader.object(value, at: path, keys: keys) else { return nil }
        let problemsBefore = reader.problems.count
        let id = reader.string(fields, "id", required: true) { id in
            let valid =
                id.count <= 63 && id.first.map { $0.isLowercase || $0.isASCIIDigitCharacter } == true
                && id.unicodeScalars.allSatisfy { ($0.isASCIILetter && $0.properties.isLowercase) || $0.isASCIIDigit || $0 == "-" || $0 == "_" }
            return valid ? nil : "must be 1 to 63 characters a-z, 0-9, '-' and '_', starting with a letter or digit"
        }
        var domains: [DomainURIPrefix] = []
        for (element, elementPath) in reader.array(fields, "domains", required: true, nonEmpty: true) {
            guard let string = reader.string(element, at: elementPath) else { continue }
            do {
                let domain = try DomainURIPrefix(string)
                // Under Relink's own paths (`RelinkPaths`, as for routes) the domain's links would be shadowed by the
                // console, the API or the probes, and its association file would hand those pages to the app.
                if let first = domain.path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).first,
                    RelinkPaths.reservedCodes.contains(String(first))
                {
                    reader.report(elementPath, "'/\(first)' is reserved for Relink's own pages; a domain's path cannot start with it")
                } else if let problem = domain.unreachableSpelling {
                    reader.report(elementPath, problem)
                } else if domains.contains(domain) {
                    reader.report(elementPath, "'\(string)' is listed twice")
                } else {
                    domains.append(domain)
                }
            } catch {
                reader.report(elementPath, error.description)
            }
        }
        var iosApps: [IOSApp] = []
        for (element, elementPath) in reader.array(fields, "ios") {
            guard let app = readIOSApp(element, at: elementPath, reader: &reader) else { continue }
            if iosApps.contains(where: { $0.bundleId == app.bundleId }) {
                reader.report(elementPath + ".bundleId", "'\(app.bundleId)' is listed twice in this project")
            } else {
                iosApps.append(app)
            }
        }
        var androidApps: [AndroidApp] = []
        for (element, elementPath) in reader.array(fields, "android") {
            guard let app = readAndroidApp(element, at: elementPath, reader: &reader) else { continue }
            if androidApps.contains(where: { $0.packageName == app.packageName }) {
                reader.report(elementPath + ".packageName", "'\(app.packageName)' is listed twice in this project")
            } else {
                androidApps.append(app)
            }
        }
        var patterns: [URLPattern] = []
        for (element, elementPath) in reader.array(fields, "allowlist") {
            guard let source = reader.string(element, at: elementPath) else { continue }
            do {
                patterns.append(try URLPattern(source))
            } catch {
                reader.report(elementPath, "'\(source)': \(error.description)")
            }
        }
        let allowlist = Allowlist(patterns: patterns)
        let defaults = fields["defaults"].flatMap {
            readDefaults($0, at: fields.path("defaults"), allowlist: allowlist, domains: domains, reader: &reader)
        }
        var routes: [PathRoute] = []
        for (element, elementPath) in reader.array(fields, "routes") {
            guard let route = readRoute(element, at: elementPath, reader: &reader) else { continue }
            if let other = routes.first(where: { $0.path.shape == route.path.shape }) {
                reader.report(elementPath + ".path", "'\(route.path)' matches the same paths as '\(other.path)'")
            } else {
                routes.append(route)
            }
        }
        let deferred = fields["deferred"].flatMap { readDeferred($0, at: fields.path("deferred"), reader: &reader) }
        let rateLimit = fields["rateLimit"].flatMap { readRateLimit($0, at: fields.path("rateLimit"), reader: &reader) }
        let socialPreview = fields["socialPreview"].flatMap {
            readSocialPreview($0, at: fields.path("socialPreview"), reader: &reader)
        }
        var rules = LinkRules()
        if let value = fields["rules"] {
            let path = fields.path("rules")
            do {
                rules = try JSONDecoder().decode(LinkRules.self, from: JSONEncoder().encode(value))
                for problem in rules.problems(isAllowed: { allowlist.allows($0, projectDomains: domains) }, linkDomains: domains) {
                    reader.report(path, problem.message)
                }
            } catch {
                reader.report(path, "must be {\"rules\": [...], \"variants\": [...]} as docs/rules.md describes (\(Self.decodingProblem(error)))")
            }
        }
        var clickTracking: [ClickTrackingHost] = []
        for (element, elementPath) in reader.array(fields, "clickTracking") {
            guard let host = readClickTrackingHost(element, at: elementPath, reader: &reader) else { continue }
            if clickTracking.contains(where: { $0.host == host.host }) {
                reader.report(elementPath + ".host", "'\(host.host)' is listed twice in this project")
            } else {
                clickTracking.append(host)
            }
        }
        guard reader.problems.count == problemsBefore, let id else { return nil }
        return Project(
            id: id, domains: domains, ios: iosApps, android: androidApps, allowlist: allowlist,
            defaults: defaults ?? ProjectDefaults(), routes: routes, deferred: deferred ?? .default,
            rateLimit: rateLimit ?? .default, socialPreview: socialPreview ?? .default, rules: rules, clickTracking: clickTracking)
    }

    private static func checkAcrossProjects(_ projects: [Project], reader: inout ConfigurationReader) {
        var projectForHost: [String: String] = [:]
        var seenIds: Set<String> = []
        for (index, project) in projects.enumerated() {
            if !seenIds.insert(project.id).inserted {
                reader.report("projects[\(index)].id", "'\(project.id)' is used by another project")
            }
            for (domainIndex, domain) in project.domains.enumerated() {
                // Association files are served per host, so a host cannot be shared between projects.
                if let owner = projectForHost[domain.hostAndPort], owner != project.id {
                    reader.report(
                        "projects[\(index)].domains[\(domainIndex)]",
                        "host '\(domain.hostAndPort)' already belongs to project '\(owner)'; a host serves one project's association files"
                    )
                } else {
                    projectForHost[domain.hostAndPort] = project.id
                }
            }
        }
        // A project's own destinations were checked against its own domains as it was read; another project's
        // domains are known only now (two projects sending desktop clicks to each other's links loop between them).
        for (index, project) in projects.enumerated() {
            let others = projects.filter { $0.id != project.id }.flatMap(\.domains)
            if let url = project.defaults.desktopFallbackLink, let uri = AbsoluteURI(url), let domain = others.first(where: { uri.isUnder($0) }) {
                reader.report(
                    "projects[\(index)].defaults.desktopFallbackLink", "points into the link domain \(domain), so desktop clicks would loop")
            }
            for problem in project.rules.loopProblems(linkDomains: others) { reader.report("projects[\(index)].rules", problem.message) }
        }
        // A route's fixed link and parameters are checked as its clicks would check them, with every domain known:
        // one that every click would refuse (outside the allowlist, into a link domain) is a mistake of the file's.
        let allDomains = projects.flatMap(\.domains)
        for (index, project) in projects.enumerated() {
            guard let prefix = project.domains.first else { continue }
            let context = LinkValidationContext(linkDomains: allDomains, project: project)
            for (routeIndex, route) in project.routes.enumerated() {
                guard let problem = refusalOfEveryClick(on: route, project: project, prefix: prefix, context: context) else { continue }
                reader.report("projects[\(index)].routes[\(routeIndex)]", "every click on it would be refused: \(problem)")
            }
        }
        // A tracking domain is a host of its own: not a link domain, not another project's tracking domain.
        var trackingOwner: [String: String] = [:]
        let trackingHosts = Set(projects.flatMap { $0.clickTracking.map(\.host) })
        for (index, project) in projects.enumerated() {
            for (hostIndex, tracking) in project.clickTracking.enumerated() {
                let path = "projects[\(index)].clickTracking[\(hostIndex)].host"
                if let owner = projectForHost[tracking.host] {
                    reader.report(path, "'\(tracking.host)' is a link domain of project '\(owner)'; a tracking domain is a host of its own")
                } else if let owner = trackingOwner[tracking.host] {
                    reader.report(path, "'\(tracking.host)' is already the tracking domain of project '\(owner)'")
                } else {
                    trackingOwner[tracking.host] = project.id
                }
                // As a request names the upstream's host: `go.example.com.` and `go.example.com:443` are Relink's too.
                let upstream = tracking.upstream.requestHost
                if projectForHost[upstream] != nil || trackingHosts.contains(upstream) {
                    reader.report(
                        "projects[\(index)].clickTracking[\(hostIndex)].upstream",
                        "'\(tracking.upstream)' is served by Relink itself; the upstream is the email service's own address")
                }
            }
        }
    }

    // MARK: Apps

    private static func readIOSApp(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> IOSApp? {
        let keys = [
            "name", "bundleId", "teamId", "appStoreId", "customScheme", "iPadBundleId", "appClipBundleId", "webCredentials",
        ]
        guard let fields = reader.object(value, at: path, keys: keys) else { return nil }
        let name = reader.string(fields, "name")
        let bundleId = reader.string(fields, "bundleId", required: true, check: checkBundleID)
        let teamId = reader.string(fields, "teamId", required: true) { team in
            team.count == 10 && team.unicodeScalars.allSatisfy({ ($0.isASCIILetter && $0.properties.isUppercase) || $0.isASCIIDigit })
                ? nil : "must be 10 characters A-Z0-9"
        }
        let appStoreId = reader.string(fields, "appStoreId") { id in
            id.allSatisfy(\.isASCIIDigitCharacter) ? nil : "must be the numeric App Store ID, like 1234567890"
        }
        let customScheme = reader.string(fields, "customScheme") { scheme in
            guard let first = scheme.unicodeScalars.first, first.isASCIILetter,
                scheme.unicodeScalars.allSatisfy({ $0.isASCIILetter || $0.isASCIIDigit || "+-.".unicodeScalars.contains($0) })
            else { return "must be a URL scheme like 'pictlink' (letters, digits, '+', '-', '.'), without '://'" }
            return ["http", "https"].contains(scheme.lowercased()) ? "must be the app's own scheme, not \(scheme)" : nil
        }
        let iPadBundleId = reader.string(fields, "iPadBundleId", check: checkBundleID)
        let appClipBundleId = reader.string(fields, "appClipBundleId") { clip in
            if let problem = checkBundleID(clip) { return problem }
            // Apple requires an App Clip's bundle ID to extend its app's.
            guard let bundle = fields["bundleId"], case .string(let parent) = bundle else { return nil }
            return clip.hasPrefix(parent + ".") ? nil : "must start with the app's bundle ID (\(parent).Clip)"
        }
        let webCredentials = reader.bool(fields, "webCredentials") ?? false
        guard let bundleId, let teamId else { return nil }
        return IOSApp(
            name: name, bundleId: bundleId, teamId: teamId, appStoreId: appStoreId, customScheme: customScheme,
            iPadBundleId: iPadBundleId, appClipBundleId: appClipBundleId, webCredentials: webCredentials)
    }

    private static func checkBundleID(_ id: String) -> ConfigurationProblem.Message? {
        let parts = id.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            parts.count >= 2
            && parts.allSatisfy { part in
                !part.isEmpty && part.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "-" }
            }
        return valid ? nil : "must be a bundle ID like com.example.app (letters, digits, '-', separated by '.')"
    }

    private static func readAndroidApp(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> AndroidApp? {
        guard let fields = reader.object(value, at: path, keys: ["name", "packageName", "sha256CertFingerprints"]) else {
            return nil
        }
        let name = reader.string(fields, "name")
        let packageName = reader.string(fields, "packageName", required: true) { package in
            let parts = package.split(separator: ".", omittingEmptySubsequences: false)
            let valid =
                parts.count >= 2
                && parts.allSatisfy { part in
                    guard let first = part.unicodeScalars.first, first.isASCIILetter else { return false }
                    return part.unicodeScalars.allSatisfy { $0.isASCIILetter || $0.isASCIIDigit || $0 == "_" }
                }
            return valid ? nil : "must be an Android package name like com.example.app"
        }
        var fingerprints: [String] = []
        for (element, elementPath) in reader.array(fields, "sha256CertFingerprints", required: true, nonEmpty: true) {
            guard let fingerprint = reader.string(element, at: elementPath) else { continue }
            let bytes = fingerprint.split(separator: ":", omittingEmptySubsequences: false)
            guard bytes.count == 32, bytes.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else {
                reader.report(
                    elementPath,
                    "must be a SHA-256 certificate fingerprint: 32 hex bytes separated by ':' (as `keytool -list -v` prints it)")
                continue
            }
            let normalized = fingerprint.uppercased()
            if fingerprints.contains(normalized) {
                reader.report(elementPath, "is listed twice")
            } else {
                fingerprints.append(normalized)
            }
        }
        guard let packageName else { return nil }
        return AndroidApp(name: name, packageName: packageName, sha256CertFingerprints: fingerprints)
    }

    // MARK: Defaults, routes, deferred

    private static func readDefaults(
        _ value: JSONValue, at path: String, allowlist: Allowlist, domains: [DomainURIPrefix],
        reader: inout ConfigurationReader
    ) -> ProjectDefaults? {
        let keys = ["socialTitle", "socialDescription", "socialImageLink", "desktopFallbackLink", "forcedRedirect"]
        guard let fields = reader.object(value, at: path, keys: keys) else { return nil }
        let checkHTTP: (String) -> ConfigurationProblem.Message? = { url in
            AbsoluteURI(url)?.isHTTP == true ? nil : "must be an absolute http(s) URL"
        }
        let desktop = reader.string(fields, "desktopFallbackLink") { url in
            if let problem = checkHTTP(url) { return problem }
            if let uri = AbsoluteURI(url), let domain = domains.first(where: { uri.isUnder($0) }) {
                return "points into the project's link domain \(domain), so desktop clicks would loop"
            }
            return allowlist.allows(url, projectDomains: domains) ? nil : "is not allowed by the project's allowlist"
        }
        return ProjectDefaults(
            socialTitle: reader.string(fields, "socialTitle"),
            socialDescription: reader.string(fields, "socialDescription"),
            socialImageLink: reader.string(fields, "socialImageLink", check: checkHTTP),
            desktopFallbackLink: desktop,
            forcedRedirect: reader.bool(fields, "forcedRedirect") ?? false)
    }

    private static func readRoute(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> PathRoute? {
        guard let fields = reader.object(value, at: path, keys: ["path", "link", "parameters"]) else { return nil }
        var template: PathTemplate?
        if let raw = reader.string(fields, "path", required: true) {
            do {
                template = try PathTemplate(raw)
            } catch {
                reader.report(fields.path("path"), error.text)
            }
        }
        let variables = Set(template?.variables ?? [])
        let checkPlaceholders: (String) -> ConfigurationProblem.Message? = { text in
            let unknown = placeholders(in: text).filter { !variables.contains($0) }
            guard template == nil || unknown.isEmpty else {
                return "uses {\(unknown[0])}, which the route's path does not define"
            }
            return nil
        }
        let link = reader.string(fields, "link", required: true) { link in
            if let problem = checkPlaceholders(link) { return problem }
            let sample = placeholders(in: link).reduce(link) { $0.replacingOccurrences(of: "{\($1)}", with: "x") }
            return AbsoluteURI(sample)?.isHTTP == true ? nil : "must be an absolute http(s) URL (with {name} placeholders)"
        }
        var parameters = LinkParameters()
        if let raw = fields["parameters"] {
            let parametersPath = fields.path("parameters")
            if case .object(let members) = raw {
                for key in members.keys.sorted() {
                    let keyPath = "\(parametersPath).\(key)"
                    guard let parameter = LinkParameter(name: key) else {
                        reader.report(keyPath, "'\(key)' is not a link parameter")
                        continue
                    }
                    guard parameter != .link, parameter != .d else {
                        reader.report(keyPath, parameter == .link ? "set the route's 'link' instead" : "'d' is only for clicks (d=1)")
                        continue
                    }
                    guard let text = reader.string(members[key]!, at: keyPath) else { continue }
                    if let problem = checkPlaceholders(text) {
                        reader.report(keyPath, problem.text)
                    } else {
                        parameters[parameter] = text
                    }
                }
            } else {
                reader.report(parametersPath, "must be an object of link parameters, got \(raw.kind)")
            }
        }
        guard let template, let link else { return nil }
        return PathRoute(path: template, link: link, parameters: parameters)
    }

    /// Why every click on `route` would be refused, as `RedirectPlanner` refuses it (the link's errors, then the
    /// allowlist), judged on its fixed values only: one with a `{name}` variable depends on the click's value (an
    /// allowlist may take `[0-9]+` and refuse `x`), so its errors are left to the clicks.
    static func refusalOfEveryClick(on route: PathRoute, project: Project, prefix: DomainURIPrefix, context: LinkValidationContext) -> String? {
        let (effective, variable) = fixedValues(of: route, project: project)
        let errors = LinkValidator.validate(effective, prefix: prefix, context: context, warnings: false).errors
        if let error = errors.first(where: { $0.parameter.map { !variable.contains($0) } ?? false }) { return error.message }
        return project.allowlist.violations(in: effective, projectDomains: project.domains, checked: project.defaults.desktopFallbackLink)
            .first { !variable.contains($0.parameter.name) }?.description
    }

    /// A route's link and parameters with the project's defaults, as its clicks get them, and the names of those that
    /// hold a `{name}` variable (their values are the click's).
    static func fixedValues(of route: PathRoute, project: Project) -> (parameters: LinkParameters, variable: Set<String>) {
        var own = LinkParameters()
        own.link = route.link
        var variable: Set<String> = route.link.contains("{") ? [LinkParameter.link.name] : []
        for (parameter, value) in route.parameters.entries {
            own[parameter] = value
            if value.contains("{") { variable.insert(parameter.name) }
        }
        return (project.applyingDefaults(to: own, fillingApps: true), variable)
    }

    /// What every click on a route would be warned of, as the debug page and the API warn a link (a value ignored, a
    /// parameter not needed), judged on the route's fixed values: its `path` in the file and the warning's message.
    /// Such a route still loads; `relink config check` and `relink serve` say so.
    public func routeWarnings() -> [(path: String, message: String)] {
        let allDomains = projects.flatMap(\.domains)
        var found: [(path: String, message: String)] = []
        for (index, project) in projects.enumerated() {
            guard let prefix = project.domains.first else { continue }
            let context = LinkValidationContext(linkDomains: allDomains, project: project)
            for (routeIndex, route) in project.routes.enumerated() {
                let (effective, variable) = Self.fixedValues(of: route, project: project)
                for warning in LinkValidator.validate(effective, prefix: prefix, context: context).warnings
                where !variable.contains(warning.parameter) {
                    found.append(("projects[\(index)].routes[\(routeIndex)] (\(route.path))", warning.message))
                }
            }
        }
        return found
    }

    /// The `{name}` placeholders in a template string.
    static func placeholders(in text: String) -> [String] {
        var names: [String] = []
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            rest = rest[rest.index(after: open)...]
            guard let close = rest.firstIndex(of: "}") else { break }
            names.append(String(rest[..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return names
    }

    private static func readRateLimit(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> RateLimit? {
        guard let fields = reader.object(value, at: path, keys: ["requestsPerSecond", "burst"]) else { return nil }
        let rate = reader.integer(fields, "requestsPerSecond", in: 1...1_000_000) ?? Int(RateLimit.default.requestsPerSecond)
        let burst = reader.integer(fields, "burst", in: 1...10_000_000) ?? RateLimit.default.burst
        return RateLimit(requestsPerSecond: Double(rate), burst: burst)
    }

    private static func readDeferred(
        _ value: JSONValue, at path: String, reader: inout ConfigurationReader
    )
        -> DeferredLinkSettings?
    {
        let keys = [
            "fingerprintWindowMinutes", "tokenWindowHours", "clipboard", "minimumConfidence", "debug", "candidatesPerAddress", "candidatesPerNetwork",
            "maxPendingClicks",
        ]
        guard let fields = reader.object(value, at: path, keys: keys) else { return nil }
        let defaults = DeferredLinkSettings.default
        let fingerprint = reader.integer(fields, "fingerprintWindowMinutes", in: 1...1440) ?? defaults.fingerprintWindowMinutes
        let token = reader.integer(fields, "tokenWindowHours", in: 1...720) ?? defaults.tokenWindowHours
        if fingerprint > token * 60 {
            reader.report(
                fields.path("fingerprintWindowMinutes"),
                "must not exceed tokenWindowHours (\(token) h), after which clicks are purged")
        }
        let minimum = reader.string(fields, "minimumConfidence") { value in
            AttributionConfidence(rawValue: value) == nil ? "must be WEAK, DEFAULT or UNIQUE, not '\(value)'" : nil
        }
        return DeferredLinkSettings(
            fingerprintWindowMinutes: fingerprint, tokenWindowHours: token, clipboard: reader.bool(fields, "clipboard") ?? defaults.clipboard,
            minimumConfidence: minimum.flatMap(AttributionConfidence.init(rawValue:)) ?? defaults.minimumConfidence,
            debug: reader.bool(fields, "debug") ?? defaults.debug,
            candidateBounds: CandidateBounds(
                perAddress: reader.integer(fields, "candidatesPerAddress", in: CandidateBounds.allowed) ?? defaults.candidateBounds.perAddress,
                perNetwork: reader.integer(fields, "candidatesPerNetwork", in: CandidateBounds.allowed) ?? defaults.candidateBounds.perNetwork),
            maxPendingClicks: reader.integer(fields, "maxPendingClicks", in: DeferredLinkSettings.allowedPendingClicks) ?? defaults.maxPendingClicks)
    }

    private static func readSocialPreview(_ value: JSONValue, at path: String, reader: inout ConfigurationReader) -> SocialPreviewSettings? {
        guard let fields = reader.object(value, at: path, keys: ["fetch", "refreshHours"]) else { return nil }
        let defaults = SocialPreviewSettings.default
        return SocialPreviewSettings(
            fetch: reader.bool(fields, "fetch") ?? defaults.fetch,
            refreshHours: reader.integer(fields, "refreshHours", in: 1...8760) ?? defaults.refreshHours)
    }

    /// A decoding error in a sentence: the key path and what was wrong.
    static func decodingProblem(_ error: any Error) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            keys.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context): return "\(path(context.codingPath + [key])) is missing"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return "\(path(context.codingPath)): \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}
