import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RelinkCore

extension AppDoctor {
    /// Fetches every project host's `apple-app-site-association` and `assetlinks.json` from a running deployment
    /// (`url`: its scheme, host and port; each host sent in `Host`), and checks what iOS and Android require: 200
    /// without a redirect, `application/json`, at most 128 KB, and the apps, fingerprints and paths the project's
    /// links need.
    public static func deployment(_ url: String, project: Project, onlyHost: String? = nil, timeout: TimeAmount = .seconds(10)) async -> [Check] {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), ["http", "https"].contains(scheme),
            var host = components.host, !host.isEmpty, components.path.isEmpty || components.path == "/", (components.port ?? 1) > 0,
            (components.port ?? 1) <= 65535
        else { return [Check(url, .fail, "is not a deployment URL (scheme, host and port only)", fix: "pass --url https://go.example.com")] }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let authority = (host.contains(":") ? "[\(host)]" : host) + (components.port.map { ":\($0)" } ?? "")
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        // A refused connection is an answer: no retrying until the deadline.
        configuration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var checks: [Check] = []
        let expected = AssociationFiles.generate(for: RelinkConfiguration(projects: [project])).filter { onlyHost == nil || $0.host == onlyHost }
        files: for files in expected {
            for (path, expectedBody) in [
                ("/.well-known/apple-app-site-association", files.appleAppSiteAssociation), ("/.well-known/assetlinks.json", files.assetLinks),
            ] {
                let subject = "https://\(files.host)\(path)"
                var request = HTTPClientRequest(url: "\(scheme)://\(authority)\(path)")
                request.headers.add(name: "Host", value: files.host)
                request.headers.add(name: "User-Agent", value: "relink-doctor")
                let fetched: (status: UInt, type: String, body: ByteBuffer, truncated: Bool)
                do {
                    let response = try await client.execute(request, deadline: .now() + timeout)
                    var body = ByteBuffer()
                    var truncated = false
                    for try await var part in response.body {
                        body.writeBuffer(&part)
                        if body.readableBytes > AssociationFiles.appleSizeLimit {
                            truncated = true
                            break
                        }
                    }
                    fetched = (response.status.code, response.headers.first(name: "Content-Type") ?? "", body, truncated)
                } catch {
                    // A deployment that does not answer once will not answer the next file either.
                    checks.append(Check(subject, .fail, "could not be fetched from \(url): \(error)", fix: "check the deployment is running there"))
                    break files
                }
                checks += association(subject: subject, fetched: fetched, expected: expectedBody, isApple: path.hasSuffix("association"))
            }
        }
        try? await client.shutdown()
        return checks
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
        subject: String, fetched: (status: UInt, type: String, body: ByteBuffer, truncated: Bool), expected: Data, isApple: Bool
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
            guard let served = try? JSONDecoder().decode(AppleAppSiteAssociation.self, from: data),
                let wanted = try? JSONDecoder().decode(AppleAppSiteAssociation.self, from: expected)
            else {
                return checks + [Check(subject, .fail, "is not an apple-app-site-association file", fix: "serve the one `relink well-known` writes")]
            }
            for detail in wanted.applinks.details {
                let appID = detail.appIDs.first ?? detail.appID
                guard let match = served.applinks.details.first(where: { $0.appIDs.contains(appID) || $0.appID == appID }) else {
                    checks.append(Check(subject, .fail, "does not name the app \(appID)", fix: "add it to ios[] in routes.json and redeploy"))
                    continue
                }
                let missing = detail.components.filter { !match.components.contains($0) }.map(\.path)
                checks.append(
                    missing.isEmpty
                        ? Check(subject, .pass, "\(appID) opens the project's paths")
                        : Check(
                            subject, .fail, "\(appID) lacks the paths \(missing.joined(separator: ", "))",
                            fix: "serve the file generated from routes.json (`relink well-known`)"))
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
}
