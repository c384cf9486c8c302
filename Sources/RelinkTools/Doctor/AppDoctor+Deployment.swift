import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkServer

extension AppDoctor {
    /// Fetches every project host's `apple-app-site-association` and `assetlinks.json` from a running deployment
    /// (`url`: its scheme, host and port; each host sent in `Host`), and checks what iOS and Android require: 200
    /// without a redirect, `application/json`, at most 128 KB, and the apps, fingerprints and paths the project's
    /// links need.
    public static func deployment(_ url: String, project: Project, onlyHost: String? = nil, timeout: TimeAmount = .seconds(10)) async -> [Check] {
        guard deploymentURLProblem(url) == nil, let origin = deploymentOrigin(url) else {
            return [Check(url, .fail, "is not a deployment URL (scheme, host and port only)", fix: "pass --url https://go.example.com")]
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // A refused connection is an answer: no retrying until the deadline. A connection (its TLS handshake too)
        // gets no longer than the whole fetch, or a server that never finishes the handshake would hold it 30 s.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = timeout
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var checks: [Check] = []
        let expected = AssociationFiles.generate(for: RelinkConfiguration(projects: [project])).filter { onlyHost == nil || $0.host == onlyHost }
        files: for files in expected {
            for (path, expectedBody) in [
                ("/.well-known/apple-app-site-association", files.appleAppSiteAssociation), ("/.well-known/assetlinks.json", files.assetLinks),
            ] {
                let subject = "https://\(files.host)\(path)"
                var request = HTTPClientRequest(url: origin + path)
                request.headers.add(name: "Host", value: files.host)
                request.headers.add(name: "User-Agent", value: "relink-doctor")
                let fetched: (status: UInt, type: String, body: ByteBuffer, truncated: Bool)
                do {
                    // The deadline covers the body too: a deployment may send its head and then trickle.
                    let deadline = NIODeadline.now() + timeout
                    fetched = try await withDeadline(deadline) { [client, request] in
                        let response = try await client.execute(request, deadline: deadline)
                        var body = ByteBuffer()
                        var truncated = false
                        for try await var part in response.body {
                            body.writeBuffer(&part)
                            if body.readableBytes > AssociationFiles.appleSizeLimit {
                                truncated = true
                                break
                            }
                        }
                        return (response.status.code, response.headers.first(name: "Content-Type") ?? "", body, truncated)
                    }
                } catch {
                    // A deployment that does not answer once will not answer the next file either.
                    let reason = timedOut(error) ? "no complete answer in \(timeout.nanoseconds / 1_000_000_000) s" : "\(error)"
                    checks.append(Check(subject, .fail, "could not be fetched from \(url): \(reason)", fix: "check the deployment is running there"))
                    break files
                }
                var samples: [String] = project.domains.filter { $0.hostAndPort == files.host }.flatMap { prefix in
                    [prefix.path + "/Ab3x"] + project.routes.map { prefix.path + Self.examplePath($0.path) }
                }
                // An email service's tracking domain: a path of each tracking pattern, its wildcards filled.
                for tracking in project.clickTracking where tracking.host == files.host {
                    samples += tracking.paths.map(Self.examplePath(trackingPattern:))
                }
                checks += association(
                    subject: subject, fetched: fetched, expected: expectedBody, isApple: path.hasSuffix("association"), samplePaths: samples)
            }
        }
        try? await client.shutdown()
        return checks
    }

    /// A path a tracking pattern matches: its wildcards filled with `x`.
    static func examplePath(trackingPattern pattern: String) -> String {
        String(pattern.map { $0 == "*" || $0 == "?" ? "x" : $0 })
    }

    /// Whether a fetch failed on its deadline: the one around it, or the HTTP client's own, whichever fired first.
    static func timedOut(_ error: any Error) -> Bool {
        error is DeadlineExceeded || (error as? HTTPClientError) == .deadlineExceeded || (error as? HTTPClientError) == .connectTimeout
    }

    /// `scheme://host[:port]` of a deployment URL, an IPv6 address in brackets; nil when it has no scheme or host.
    static func deploymentOrigin(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), var host = components.host
        else { return nil }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return "\(scheme)://" + (host.contains(":") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
    }

    /// Why `url` cannot name a deployment (scheme, host and port only), or nil.
    public static func deploymentURLProblem(_ url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = components.host, !host.isEmpty
        else { return "--url must be an http(s) URL such as https://go.example.com, got '\(url.leadingScalars(200))'" }
        guard components.path.isEmpty || components.path == "/", components.query == nil, components.fragment == nil,
            components.user == nil, components.password == nil
        else { return "--url takes a deployment's scheme, host and port only, got '\(url.leadingScalars(200))'" }
        if let port = components.port, !(1...65535).contains(port) { return "--url's port must be 1 to 65535, got \(port)" }
        return nil
    }

    /// `deployment` for every host of the project, each asked at its own address (after the DNS switch).
    public static func domains(of project: Project) async -> [Check] {
        var checks: [Check] = []
        var seen: Set<String> = []
        for prefix in project.domains where seen.insert(prefix.hostAndPort).inserted {
            checks += await deployment("\(prefix.scheme)://\(prefix.hostAndPort)", project: project, onlyHost: prefix.hostAndPort)
        }
        return checks
    }

    static func association(
        subject: String, fetched: (status: UInt, type: String, body: ByteBuffer, truncated: Bool), expected: Data, isApple: Bool,
        samplePaths: [String]
    ) -> [Check] {
        guard fetched.status == 200 else {
            let redirect = (300..<400).contains(fetched.status)
            return [
                Check(
                    subject, .fail, "answers HTTP \(fetched.status)\(redirect ? " (a redirect, which iOS and Android do not follow)" : "")",
                    fix: "serve it from the domain itself with status 200")
            ]
        }
        var checks: [Check] = []
        let mediaType = fetched.type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        checks.append(
            mediaType == "application/json"
                ? Check(subject, .pass, "200, application/json")
                : Check(subject, .fail, "is served as '\(mediaType)'", fix: "serve it as application/json"))
        guard !fetched.truncated else {
            return checks + [Check(subject, .fail, "is larger than 128 KB, Apple's limit", fix: "fewer paths or apps per file")]
        }
        let data = Data(fetched.body.readableBytesView)
        if isApple {
            guard let served = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any],
                let applinks = served["applinks"] as? [String: Any], let details = applinks["details"] as? [[String: Any]],
                let wanted = try? JSONDecoder().decode(AppleAppSiteAssociation.self, from: expected)
            else {
                return checks + [Check(subject, .fail, "is not an apple-app-site-association file", fix: "serve the one `relink well-known` writes")]
            }
            let caseSensitive = ((applinks["defaults"] as? [String: Any])?["caseSensitive"] as? Bool) ?? true
            for detail in wanted.applinks.details {
                let appID = detail.appIDs.first ?? detail.appID
                guard
                    let match = details.first(where: { entry in
                        (entry["appIDs"] as? [String])?.contains(appID) == true || entry["appID"] as? String == appID
                    })
                else {
                    checks.append(Check(subject, .fail, "does not name the app \(appID)", fix: "add it to ios[] in routes.json and redeploy"))
                    continue
                }
                // As iOS reads it: the first component (or legacy path) that matches decides, an exclude keeps the
                // link in the browser.
                let closed = samplePaths.filter { !Self.opens($0, detail: match, caseSensitive: caseSensitive) }
                checks.append(
                    closed.isEmpty
                        ? Check(subject, .pass, "\(appID) opens the project's paths")
                        : Check(
                            subject, .fail, "\(appID) does not open \(closed.joined(separator: ", "))",
                            fix: "serve the file generated from routes.json (`relink well-known`)"))
                // What Relink serves to browsers at the root (the console, the API): a tap there must stay in the browser.
                let claimed = RelinkPaths.servedAtRoot.map { "\($0)/links" }.filter { Self.opens($0, detail: match, caseSensitive: caseSensitive) }
                if !claimed.isEmpty {
                    checks.append(
                        Check(
                            subject, .warning,
                            "\(appID) also opens \(claimed.joined(separator: ", ")): Relink serves these to browsers (the console, the API), and a tap on such a link on a phone with the app opens the app",
                            fix: "serve the file generated from routes.json (`relink well-known`), which leaves them out"))
                }
            }
        } else {
            guard let served = try? JSONDecoder().decode([AssetLinkStatement].self, from: data),
                let wanted = try? JSONDecoder().decode([AssetLinkStatement].self, from: expected)
            else { return checks + [Check(subject, .fail, "is not an assetlinks.json file", fix: "serve the one `relink well-known` writes")] }
            for statement in wanted {
                let package = statement.target.packageName
                guard
                    let match = served.first(where: {
                        $0.target.packageName == package && $0.relation.contains("delegate_permission/common.handle_all_urls")
                    })
                else {
                    checks.append(Check(subject, .fail, "has no handle_all_urls statement for \(package)", fix: "add it to android[] in routes.json"))
                    continue
                }
                let missing = statement.target.sha256CertFingerprints.filter { !match.target.sha256CertFingerprints.contains($0) }
                checks.append(
                    missing.isEmpty
                        ? Check(subject, .pass, "\(package) with its \(statement.target.sha256CertFingerprints.count) fingerprint(s)")
                        : Check(
                            subject, .fail, "\(package) lacks the fingerprints \(missing.joined(separator: ", "))", fix: "redeploy with routes.json's"
                        ))
            }
        }
        return checks
    }

    /// Whether an `applinks` detail opens `path` (a link without query or fragment, as Relink's are): its
    /// `components` (iOS 13+) or else its `paths` (`NOT ` excludes), the first match deciding; `*` any run of
    /// characters, `?` one.
    static func opens(_ path: String, detail: [String: Any], caseSensitive: Bool) -> Bool {
        func matches(_ pattern: String, caseSensitive: Bool) -> Bool {
            caseSensitive ? AASAPattern.matches(path, pattern) : AASAPattern.matches(path.lowercased(), pattern.lowercased())
        }
        if let components = detail["components"] as? [[String: Any]] {
            for component in components {
                // A component without "/" matches every path; one that asks for a query item or a fragment ("?",
                // "#" other than "*") matches no link without them.
                let sensitive = component["caseSensitive"] as? Bool ?? caseSensitive
                guard matches(component["/"] as? String ?? "*", caseSensitive: sensitive), Self.takesNoQueryOrFragment(component) else { continue }
                return (component["exclude"] as? Bool) != true
            }
            return false
        }
        for entry in detail["paths"] as? [String] ?? [] {
            let excluded = entry.hasPrefix("NOT ")
            guard matches(excluded ? String(entry.dropFirst(4)) : entry, caseSensitive: caseSensitive) else { continue }
            return !excluded
        }
        return false
    }

    /// Whether a component matches a link without query and fragment: its "?" and "#", when given, take anything.
    static func takesNoQueryOrFragment(_ component: [String: Any]) -> Bool {
        func any(_ value: Any?) -> Bool {
            guard let value else { return true }
            if let pattern = value as? String { return pattern == "*" }
            if let items = value as? [String: Any] { return items.isEmpty }
            return false
        }
        return any(component["?"]) && any(component["#"])
    }
}

/// Apple's path patterns: `*` matches any run of characters, `?` exactly one, everything else itself.
enum AASAPattern {
    static func matches(_ text: String, _ pattern: String) -> Bool {
        let input = Array(text)
        var reachable = Set([0])
        for token in pattern {
            var next: Set<Int> = []
            for position in reachable {
                switch token {
                case "*": next.formUnion(position...input.count)
                case "?": if position < input.count { next.insert(position + 1) }
                default: if position < input.count, input[position] == token { next.insert(position + 1) }
                }
            }
            reachable = next
            if reachable.isEmpty { return false }
        }
        return reachable.contains(input.count)
    }
}
