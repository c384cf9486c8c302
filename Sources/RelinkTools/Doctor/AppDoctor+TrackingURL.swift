import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkServer

extension AppDoctor {
    /// How many tracking domains a sample may pass through before it must reach a link (as the server unwraps).
    static let maximumTrackingHops = 3

    /// Follows a sample tracking URL (a link of a sent email, rewritten by the email service) through the project's
    /// tracking domain, as a tap does, and checks it ends at a link of the project that the deployment knows:
    /// its path is a tracking path (so the apps open it), the email service answers a redirect through Relink, and
    /// the redirect leads, within `maximumTrackingHops` tracking domains, to one of the project's domains where the
    /// link answers. Each request goes to `deployment` (scheme, host and port, the URL's host in `Host`) when given,
    /// else to the URL's own host, all within `timeout`, and only while the URL is on a tracking domain or a link of
    /// the project (a redirect elsewhere fails unasked). The email service counts the sample's click, as a tap's.
    public static func trackingURL(
        _ sample: String, project: Project, deployment: String? = nil, timeout: TimeAmount = .seconds(10)
    ) async -> [Check] {
        guard let current = URLComponents(string: sample), let scheme = current.scheme?.lowercased(), ["http", "https"].contains(scheme),
            current.host?.isEmpty == false
        else {
            return [
                Check(sample, .fail, "is not an http(s) URL", fix: "pass a link from a sent email, such as https://click.example.com/ls/click?upn=…")
            ]
        }
        // Never echoed: a password would land in the terminal, a log or --json's output.
        guard current.user == nil, current.password == nil else {
            return [
                Check(
                    "the --tracking-url given", .fail, "has a user name or password, which an email's link never has",
                    fix: "pass the link as the email has it")
            ]
        }
        guard let tracking = project.clickTracking.first(where: { $0.host == hostAndPort(current) }) else {
            let hosts = project.clickTracking.map(\.host)
            return [
                Check(
                    sample, .fail,
                    hosts.isEmpty
                        ? "the project \(project.id) has no click-tracking domain"
                        : "is not on a click-tracking domain of the project \(project.id) (\(hosts.joined(separator: ", ")))",
                    fix: "add the email service's tracking domain to clickTracking in routes.json (docs/email.md)")
            ]
        }
        var checks: [Check] = []
        let path = current.percentEncodedPath.isEmpty ? "/" : current.percentEncodedPath
        if tracking.isTrackingPath(Substring(path)) {
            checks.append(Check(sample, .pass, "its path is a tracking path of \(tracking.host): the project's apps open it"))
        } else {
            checks.append(
                Check(
                    sample, .fail,
                    "its path \(path) is none of \(tracking.host)'s tracking paths (\(tracking.paths.joined(separator: ", "))): a tap opens the browser, not the app",
                    fix: "add a pattern of the email service's tracking paths to clickTracking's paths in routes.json"))
        }
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.connect = timeout
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        // One deadline for the whole chain: a service (or a loop between tracking domains) that answers each request
        // just in time must not keep the doctor for every hop's timeout.
        checks += await follow(
            current, sample: sample, project: project, deployment: deployment, client: client, timeout: timeout, deadline: .now() + timeout)
        try? await client.shutdown()
        return checks
    }

    /// The redirects from a tracking URL, through at most `maximumTrackingHops` tracking domains, to a link.
    private static func follow(
        _ start: URLComponents, sample: String, project: Project, deployment: String?, client: HTTPClient, timeout: TimeAmount,
        deadline: NIODeadline
    ) async -> [Check] {
        var current = start
        var hops: [String] = []
        for _ in 0...maximumTrackingHops {
            let url = current.string ?? sample
            let host = hostAndPort(current)
            let isTracking = project.clickTracking.contains(where: { $0.host == host })
            // Checked before asking: a URL outside the project (an unsubscribe or one-time sign-in link, another
            // site) is not the doctor's to open.
            let path = Substring(current.percentEncodedPath)
            // The scheme too: an http link on the project's https domain does not open the app.
            let scheme = current.scheme?.lowercased()
            guard
                isTracking
                    || project.domains.contains(where: { $0.scheme == scheme && $0.hostAndPort == host && $0.relativePath(of: path) != nil })
            else {
                return [
                    Check(
                        sample, .fail, "leads to \(url), which is not a link of the project \(project.id)",
                        fix: "in the email, link to the project's links (\(project.domains.map(\.description).joined(separator: ", ")))")
                ]
            }
            let answer: (status: UInt, location: String?)
            do {
                answer = try await head(of: current, deployment: deployment, client: client, deadline: deadline)
            } catch {
                let reason = timedOut(error) ? "no answer in \(Double(timeout.nanoseconds) / 1e9) s" : "\(error)"
                return [
                    Check(
                        url, .fail, "could not be fetched\(deployment.map { " from \($0)" } ?? ""): \(reason)",
                        fix: "check the deployment is running there")
                ]
            }
            if isTracking {
                guard (300...399).contains(answer.status), let location = answer.location,
                    let next = URL(string: location, relativeTo: current.url)?.absoluteURL,
                    let components = URLComponents(url: next, resolvingAgainstBaseURL: true), components.host?.isEmpty == false,
                    // A user name or password in a redirect is never followed, nor shown.
                    components.user == nil, components.password == nil
                else {
                    let reason =
                        switch answer.status {
                        case 502:
                            "Relink got no usable answer from the email service (HTTP 502: unreachable, refused, or an answer over Relink's caps)"
                        case 504: "the email service did not answer Relink in time (HTTP 504)"
                        case 300...399:
                            "the email service answered HTTP \(answer.status) without a usable Location (or with a user name or password in it)"
                        default: "the email service answered HTTP \(answer.status) through \(host), not a redirect"
                        }
                    return [
                        Check(url, .fail, reason, fix: "check clickTracking's upstream in routes.json, and that the sample is a live tracking link")
                    ]
                }
                hops.append(url)
                current = components
                continue
            }
            guard answer.status != 404, answer.status < 500 else {
                return [
                    Check(
                        sample, .fail, "leads to \(url), which the deployment answers with HTTP \(answer.status)",
                        fix: answer.status == 404 ? "mint the link, or fix the email's link" : "check the deployment's log")
                ]
            }
            let through = hops.count > 1 ? " through \(hops.count) tracking URLs" : ""
            return [
                Check(sample, .pass, "reaches \(url)\(through), a link of the project (HTTP \(answer.status)); the email service counted this click")
            ]
        }
        return [
            Check(
                sample, .fail, "redirects between tracking domains more than \(maximumTrackingHops) times (\(hops.joined(separator: " → ")))",
                fix: "check clickTracking's upstreams in routes.json")
        ]
    }

    /// A URL's host, with its port when it has one, as `clickTracking`'s `host` names it.
    private static func hostAndPort(_ components: URLComponents) -> String {
        let host = (components.host ?? "").lowercased()
        // The scheme's own port is no port: `https://click.example.com:443/…` is the configured `click.example.com`.
        let defaultPort = components.scheme?.lowercased() == "http" ? 80 : 443
        guard let port = components.port, port != defaultPort else { return host }
        return "\(host):\(port)"
    }

    /// The status and `Location` of a GET of `url`, not followed; the body is read up to 64 KB and dropped.
    private static func head(
        of url: URLComponents, deployment: String?, client: HTTPClient, deadline: NIODeadline
    ) async throws -> (status: UInt, location: String?) {
        let target =
            (url.percentEncodedPath.isEmpty ? "/" : url.percentEncodedPath) + (url.percentEncodedQuery.map { "?" + $0 } ?? "")
        let origin =
            deployment.flatMap(deploymentOrigin)
            ?? "\(url.scheme ?? "https")://\(url.percentEncodedHost ?? "")" + (url.port.map { ":\($0)" } ?? "")
        var request = HTTPClientRequest(url: origin + target)
        request.headers.add(name: "Host", value: hostAndPort(url))
        request.headers.add(name: "User-Agent", value: "relink-doctor")
        return try await withDeadline(deadline) { [client, request] in
            let response = try await client.execute(request, deadline: deadline)
            var read = 0
            for try await part in response.body {
                read += part.readableBytes
                if read > 64 << 10 { break }
            }
            return (response.status.code, response.headers.first(name: "Location"))
        }
    }
}
