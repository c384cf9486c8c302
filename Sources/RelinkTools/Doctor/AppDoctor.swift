import Foundation
import RelinkCore
import RelinkServer

/// `relink doctor`: checks the app side of a project's links (most "my link opens Safari" reports come from there):
/// the iOS entitlements, the Android manifest, and the association files a deployment serves.
public enum AppDoctor {
    /// One line of the checklist.
    public struct Check: Codable, Sendable, Equatable {
        public enum Status: String, Codable, Sendable { case pass, warning, fail }
        /// The file or URL checked.
        public var subject: String
        public var status: Status
        public var message: String
        /// What to change, for a failure or a warning.
        public var fix: String?

        /// Every text as it may reach a terminal: control characters (C0 and C1: escape sequences) and
        /// bidirectional overrides shown as `?`, at most 1,000 characters, since files and deployments are read.
        public init(_ subject: String, _ status: Status, _ message: String, fix: String? = nil) {
            self.subject = Self.printable(subject)
            self.status = status
            self.message = Self.printable(message)
            self.fix = fix.map(Self.printable)
        }

        static func printable(_ text: String) -> String {
            var scalars = String.UnicodeScalarView()
            for scalar in text.unicodeScalars.prefix(1000) {
                let unsafe = scalar.properties.generalCategory == .control || PagePreview.bidiControls.contains(scalar.value)
                scalars.append(unsafe ? "?" : scalar)
            }
            return String(scalars) + (text.unicodeScalars.count > 1000 ? "…" : "")
        }
    }

    static let associatedDomainsKey = "com.apple.developer.associated-domains"

    // MARK: iOS entitlements

    /// Checks an `.entitlements` plist: an `applinks:` entry for every host of the project (`webcredentials:` and
    /// `appclips:` where the project serves them), no `?mode=developer` left in, and, when the file names its app,
    /// that the app is one of the project's.
    public static func entitlements(_ bytes: some Collection<UInt8>, file: String, project: Project) -> [Check] {
        let plist: [String: PlistValue]
        do {
            plist = try PlistValue.dictionary(XMLDocument(parsing: bytes))
        } catch {
            return [Check(file, .fail, "cannot be read as a property list: \(error)", fix: "export it from Xcode as an XML plist")]
        }
        var checks: [Check] = []
        let hosts = Array(Set(project.domains.map(\.host))).sorted()
        guard case .array(let values)? = plist[associatedDomainsKey] else {
            let entries = hosts.map { "<string>applinks:\($0)</string>" }.joined()
            return [
                Check(
                    file, .fail, "has no \(associatedDomainsKey) array",
                    fix: "add <key>\(associatedDomainsKey)</key><array>\(entries)</array> (Signing & Capabilities → Associated Domains)")
            ]
        }
        let entries = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        var services = ["applinks"]
        if project.ios.contains(where: \.webCredentials) { services.append("webcredentials") }
        if project.ios.contains(where: { $0.appClipBundleId != nil }) { services.append("appclips") }
        for service in services {
            for host in hosts {
                let matching = entries.filter { Self.entry($0, service: service, covers: host) }
                if matching.isEmpty, service == "applinks",
                    let bare = entries.first(where: { !$0.contains(":") && Self.entry("applinks:" + $0, service: service, covers: host) })
                {
                    // iOS reads `service:host` entries only: a bare host (typed into Xcode's Associated Domains list) is ignored.
                    checks.append(
                        Check(
                            file, .fail, "'\(bare)' lacks the applinks: prefix",
                            fix: "write it as <string>applinks:\(bare)</string> in \(associatedDomainsKey)"))
                } else if matching.isEmpty {
                    checks.append(
                        Check(
                            file, .fail, "no \(service): entry for \(host)", fix: "add <string>\(service):\(host)</string> to \(associatedDomainsKey)"
                        ))
                } else if let developer = matching.first(where: { $0.lowercased().contains("?mode=developer") }) {
                    checks.append(
                        Check(
                            file, .warning, "\(developer) fetches the association file from the server directly, in development builds only",
                            fix: "remove ?mode=developer before a release build"))
                } else {
                    checks.append(Check(file, .pass, "\(matching[0])"))
                }
            }
        }
        // Entries for hosts the project does not serve: harmless, but often a page.link domain that no longer answers.
        for entry in entries where entry.lowercased().hasPrefix("applinks:") {
            guard !hosts.contains(where: { Self.entry(entry, service: "applinks", covers: $0) }) else { continue }
            checks.append(
                Check(
                    file, .warning, "\(entry) is not a domain of project \(project.id)",
                    fix: "remove it if the app no longer opens links there (a *.page.link domain no longer answers)"))
        }
        // A signed app's entitlements name it; a project file usually leaves that to the build settings.
        let applicationID: String? = ["com.apple.application-identifier", "application-identifier"].lazy.compactMap { key in
            if case .string(let text)? = plist[key] { text } else { nil }
        }.first
        if let applicationID {
            let known = project.ios.flatMap { app in [app.appID] + (app.iPadBundleId.map { ["\(app.teamId).\($0)"] } ?? []) }
            if known.contains(applicationID) {
                checks.append(Check(file, .pass, "the app \(applicationID) is one of the project's"))
            } else {
                checks.append(
                    Check(
                        file, .fail, "the app \(applicationID) is not one of the project's (\(known.joined(separator: ", ")))",
                        fix: "add its team ID and bundle ID to ios[] in routes.json, or check the file belongs to this project"))
            }
        }
        return checks
    }

    /// Whether an associated-domains entry (`applinks:host`, `applinks:*.example.com`, with an optional `?mode=`)
    /// covers `host` for `service`.
    static func entry(_ entry: String, service: String, covers host: String) -> Bool {
        let prefix = service + ":"
        // ASCII case only: Unicode's mapping would take the Kelvin sign for a k, a domain no device asks for.
        guard asciiLowercased(entry).hasPrefix(prefix) else { return false }
        var domain = entry.dropFirst(prefix.count)
        if let mark = domain.firstIndex(of: "?") { domain = domain[..<mark] }
        let pattern = asciiLowercased(domain)
        if pattern.hasPrefix("*.") { return host.hasSuffix(pattern.dropFirst(1)) && host.count > pattern.count - 1 }
        return pattern == host
    }

    /// `text` with A–Z lowered and every other byte kept.
    static func asciiLowercased(_ text: some StringProtocol) -> String {
        String(decoding: text.utf8.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
    }

    // MARK: Android manifest

    static let androidNamespace = "http://schemas.android.com/apk/res/android"

    /// Checks an `AndroidManifest.xml`: its package is one of the project's, and for every host an activity has an
    /// `autoVerify` intent filter (VIEW, BROWSABLE, DEFAULT, https) whose hosts and paths cover the project's short
    /// links and routes.
    public static func manifest(_ bytes: some Collection<UInt8>, file: String, project: Project) -> [Check] {
        let document: XMLDocument
        let filters: [IntentFilter]
        do {
            document = try XMLDocument(parsing: bytes)
            filters = try document.nodes("//activity/intent-filter | //activity-alias/intent-filter").map(IntentFilter.init)
        } catch {
            return [Check(file, .fail, "cannot be read: \(error)", fix: "check it is the app's AndroidManifest.xml (XML)")]
        }
        var checks: [Check] = []
        let packages = project.android.map(\.packageName)
        if let package = document.root?.attribute("package") {
            checks.append(
                packages.contains(package)
                    ? Check(file, .pass, "package \(package) is one of the project's")
                    : Check(
                        file, .fail, "package \(package) is not one of the project's (\(packages.joined(separator: ", ")))",
                        fix: "add it to android[] in routes.json with its signing certificate's SHA-256"))
        }
        // Android compares schemes and hosts as written: a capital (or a look-alike outside ASCII) never matches.
        for filter in filters {
            for value in filter.hosts.map({ ("host", $0) }) + filter.schemes.sorted().map({ ("scheme", $0) })
            where value.1 != Self.asciiLowercased(value.1) || !value.1.utf8.allSatisfy({ $0 < 0x80 }) {
                checks.append(
                    Check(
                        file, .fail,
                        "android:\(value.0)=\"\(value.1)\" (intent-filter at line \(filter.line)) is not lowercase ASCII: Android compares it as written, so no link matches it",
                        fix: "write it in lowercase ASCII (hosts in their xn-- form)"))
            }
        }
        for prefix in project.domains {
            let paths = [prefix.path + "/Ab3x"] + project.routes.map { prefix.path + Self.examplePath($0.path) }
            let hostFilters = filters.filter { $0.schemes.contains("https") && $0.covers(host: prefix.host) }
            let data =
                "<data android:scheme=\"https\" android:host=\"\(prefix.host)\"\(prefix.path.isEmpty ? "" : " android:pathPrefix=\"\(prefix.path)/\"")/>"
            let complete = """
                <intent-filter android:autoVerify="true"><action android:name="android.intent.action.VIEW"/>\
                <category android:name="android.intent.category.DEFAULT"/><category android:name="android.intent.category.BROWSABLE"/>\
                \(data)</intent-filter>
                """
            guard !hostFilters.isEmpty else {
                if let other = filters.first(where: { $0.covers(host: prefix.host) }) {
                    checks.append(Self.withoutHTTPS(other, host: prefix.host, file: file))
                } else {
                    checks.append(
                        Check(file, .fail, "no intent-filter for host \(prefix.host)", fix: "add \(complete) to the activity that opens links"))
                }
                continue
            }
            let verified = hostFilters.filter(\.autoVerify)
            guard !verified.isEmpty else {
                checks.append(
                    Check(
                        file, .fail,
                        "the intent-filter for \(prefix.host) (line \(hostFilters[0].line)) has no android:autoVerify=\"true\": links open a chooser or the browser",
                        fix: "add android:autoVerify=\"true\" to it"))
                continue
            }
            let usable = verified.filter { $0.isBrowsableView }
            guard let filter = usable.first else {
                let missing = verified[0].missingForLinks.joined(separator: ", ")
                checks.append(
                    Check(
                        file, .fail, "the intent-filter for \(prefix.host) (line \(verified[0].line)) lacks \(missing)",
                        fix: "add \(missing) to it"))
                continue
            }
            let uncovered = paths.filter { path in !usable.contains { $0.covers(path: path) } }
            if uncovered.isEmpty {
                checks.append(Check(file, .pass, "\(prefix.description) opens in the app (intent-filter at line \(filter.line))"))
            } else {
                checks.append(
                    Check(
                        file, .fail, "the intent-filters for \(prefix.host) do not cover \(uncovered.joined(separator: ", "))",
                        fix:
                            "add <data android:pathPrefix=\"\(prefix.path.isEmpty ? "/" : prefix.path + "/")\"/> to the intent-filter at line \(filter.line)"
                    ))
            }
        }
        return checks
    }

    /// The failure for a filter that names `host` without the https scheme: everything it lacks for App Links, named.
    static func withoutHTTPS(_ filter: IntentFilter, host: String, file: String) -> Check {
        let schemes = filter.schemes.sorted()
        var defects = [
            schemes.isEmpty ? "no scheme" : "\(schemes.count == 1 ? "scheme" : "schemes") \(schemes.joined(separator: ", ")) only"
        ]
        var additions = ["<data android:scheme=\"https\"/>"]
        if !filter.autoVerify {
            defects.append("no android:autoVerify=\"true\"")
            additions.append("android:autoVerify=\"true\"")
        }
        if !filter.missingForLinks.isEmpty {
            defects.append("no \(filter.missingForLinks.joined(separator: ", "))")
            additions += filter.missingForLinks
        }
        func list(_ items: [String]) -> String {
            items.count < 2 ? items.joined() : items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
        return Check(
            file, .fail, "the intent-filter for \(host) (line \(filter.line)) has \(list(defects)): https links open the browser",
            fix: "add \(list(additions)) to it")
    }

    /// A path the template matches: each variable replaced by a sample value.
    static func examplePath(_ template: PathTemplate) -> String {
        "/"
            + template.segments.map { segment in
                switch segment {
                case .literal(let text): text
                case .variable: "x1"
                }
            }.joined(separator: "/")
    }
}
