import Foundation
import RelinkCore
import RelinkStore

/// Deferred deep links: keeping clicks that may lead to an install, and handing each to the one install that
/// claims it.
final class DeferredLinkService: Sendable {
    let store: any RelinkStore
    let configuration: RelinkConfiguration
    let directory: DomainDirectory
    let recorder: DeferredClickRecorder
    let events: EventRecorder
    let hasher: AddressHasher
    let cache: LinkCache
    let reopens = ReopenDeduplicator()

    init(
        store: any RelinkStore, configuration: RelinkConfiguration, recorder: DeferredClickRecorder, events: EventRecorder,
        hasher: AddressHasher, cache: LinkCache
    ) {
        self.store = store
        self.configuration = configuration
        self.directory = DomainDirectory(configuration)
        self.recorder = recorder
        self.events = events
        self.hasher = hasher
        self.cache = cache
    }

    /// 128 random bits as 22 base-62 characters, so click ids cannot be guessed or enumerated.
    static func newClickID() -> String {
        var generator = SystemRandomNumberGenerator()
        return ShortCodeGenerator.random128(using: &generator)
    }

    /// `…?rc=<click id>&_icp=1`: the link the preview page copies for the app to claim (FDL's marker last).
    static func claimURL(for link: ResolvedLink, clickID: String) -> String {
        link.url + (link.url.contains("?") ? "&" : "?") + "rc=\(clickID)&_icp=1"
    }

    // MARK: Capture

    func fingerprint(client: DetectedClient, clientAddress: String?, userAgent: String, acceptLanguage: String?) async -> DeviceFingerprint {
        let client = PlatformDetector.addingDeviceDetails(to: client, userAgent: userAgent)
        let hashes = hasher.hashes(of: clientAddress)
        return DeviceFingerprint(
            addressHash: hashes?.address, networkHash: hashes?.network, ipVersion: hashes?.version,
            osVersion: DeviceFingerprint.majorMinor(client.osVersion), device: client.deviceModel?.lowercased(),
            languages: acceptLanguage.map(LanguageList.fromAcceptLanguage) ?? [])
    }

    func capture(
        clickID: String, project: Project, link: ResolvedLink, linkId: Int64?, platform: Platform, fingerprint: DeviceFingerprint
    ) {
        recorder.record(
            PendingClick(
                id: clickID, projectId: project.id, platform: platform == .android ? .android : .ios, linkId: linkId,
                appId: Self.appId(link.parameters, platform: platform), requestedLink: link.url, createdAt: Date(),
                fingerprint: fingerprint))
    }

    /// The app a store-bound click was sent to install, as the planner picks it: only claims from that app match it.
    static func appId(_ parameters: LinkParameters, platform: Platform) -> String? {
        switch platform {
        case .android: parameters.apn
        case .iPad: parameters.ipbi ?? parameters.ibi
        default: parameters.ibi
        }
    }

    // MARK: Claims

    func claim(_ request: InstallAttributionRequest, clientAddress: String?, keyProject: Project?) async throws -> InstallAttributionResponse {
        let android: Bool
        switch request.platform?.uppercased() {
        case nil, "IOS": android = false
        case "ANDROID": android = true
        case let other?: throw APIError.invalidArgument("platform must be IOS or ANDROID, got '\(other)'.")
        }
        guard let bundle = request.bundleId?.trimmingCharacters(in: .whitespaces), !bundle.isEmpty else {
            throw APIError.invalidArgument("bundleId is required: the app's bundle ID (iOS) or package name (Android).")
        }
        guard let project = configuration.projects.first(where: { project in
            android ? project.android.contains { $0.packageName == bundle } : project.iOSApp(bundleId: bundle) != nil
        }) else {
            throw APIError.invalidArgument("No project has an \(android ? "Android" : "iOS") app '\(bundle)'; add it to routes.json.")
        }
        if let keyProject, keyProject.id != project.id {
            throw APIError.permissionDenied("The app '\(bundle)' belongs to another project than this API key.")
        }
        if let installId = request.installId {
            guard Self.isValidInstallId(installId) else { throw APIError.invalidArgument(Self.installIdRule) }
            if let previous = try await store.installClaim(projectId: project.id, installId: installId) {
                return try Self.decode(previous.response)
            }
        }
        // Clicks made a moment ago may still be in memory.
        await recorder.flush()
        let hashes = hasher.hashes(of: clientAddress)
        let ipVersion = hashes?.version
        let now = Date()

        if let token = Self.token(request, android: android) {
            if let click = try await store.pendingClick(id: token), click.projectId == project.id,
                click.platform == (android ? .android : .ios), click.appId == nil || click.appId == bundle,
                now.timeIntervalSince(click.createdAt) <= TimeInterval(project.deferred.tokenWindowHours) * 3600
            {
                let answer = await answer(click, android: android, confidence: .unique, message: "Matched by the click's own link.", ipVersion: ipVersion)
                if let result = try await claim(click, answer: answer, installId: request.installId, android: android, now: now) {
                    return result
                }
                return try await answerNone(
                    "This link was already claimed by another install.", project: project, installId: request.installId,
                    ipVersion: ipVersion, now: now)
            }
        }

        let fingerprint = Self.fingerprint(request, android: android, hashes: hashes)
        let window = TimeInterval(project.deferred.fingerprintWindowMinutes) * 60
        // Clicks kept before a secret rotation carry hashes under the previous secret: those are looked up too, and
        // translated to the current secret's hashes, so the matcher sees one address as one.
        let previous = hasher.previousHashes(of: clientAddress)
        let platform: StatsPlatform = android ? .android : .ios
        var activity = AddressActivity(clicks: 0, similarClicks: 0)
        for hashes in [hashes].compactMap({ $0 }) + previous {
            var keyed = fingerprint
            keyed.addressHash = hashes.address
            let more = try await store.addressActivity(
                projectId: project.id, addressHash: hashes.address, since: now.addingTimeInterval(-AttributionMatcher.crowdPeriod),
                platform: platform, fingerprint: keyed)
            activity.clicks += more.clicks
            activity.similarClicks += more.similarClicks
        }
        var excluded: Set<String> = []
        for _ in 0..<3 {
            var candidates = try await store.candidateClicks(
                projectId: project.id, platform: platform, appId: bundle, since: now.addingTimeInterval(-window),
                fingerprint: fingerprint, limit: 500)
            if let hashes {
                for old in previous {
                    var keyed = fingerprint
                    (keyed.addressHash, keyed.networkHash) = (old.address, old.network)
                    for var click in try await store.candidateClicks(
                        projectId: project.id, platform: platform, appId: bundle, since: now.addingTimeInterval(-window),
                        fingerprint: keyed, limit: 500)
                    {
                        if click.fingerprint.addressHash == old.address { click.fingerprint.addressHash = hashes.address }
                        if click.fingerprint.networkHash == old.network { click.fingerprint.networkHash = hashes.network }
                        candidates.append(click)
                    }
                }
            }
            candidates.removeAll { excluded.contains($0.id) }
            let decision = AttributionMatcher.match(
                install: fingerprint,
                candidates: candidates.map {
                    .init(id: $0.id, createdAt: $0.createdAt, fingerprint: $0.fingerprint, weaklyClaimed: $0.isWeaklyClaimed)
                }, now: now, window: window, addressActivity: activity.clicks, similarActivity: activity.similarClicks)
            guard case .matched(let id, let confidence, let message) = decision, let click = candidates.first(where: { $0.id == id }) else {
                if case .none(let message) = decision {
                    return try await answerNone(message, project: project, installId: request.installId, ipVersion: ipVersion, now: now)
                }
                break
            }
            // Below the project's minimum the guess is not given, and the click stays for its owner.
            guard confidence >= project.deferred.minimumConfidence else {
                return try await answerNone(
                    AttributionMatcher.noMatchMessage, project: project, installId: request.installId, ipVersion: ipVersion, now: now)
            }
            let answer = await answer(click, android: android, confidence: confidence, message: message, ipVersion: ipVersion)
            if let result = try await claim(click, answer: answer, installId: request.installId, android: android, now: now) {
                return result
            }
            excluded.insert(click.id)  // another install was faster: look again without it
        }
        return try await answerNone(
            AttributionMatcher.noMatchMessage, project: project, installId: request.installId, ipVersion: ipVersion, now: now)
    }

    /// Claims `click` for this install with `answer`: that answer when this install won the click, the earlier
    /// answer when this install asked before, nil when another install took the click.
    private func claim(
        _ click: PendingClick, answer: InstallAttributionResponse, installId: String?, android: Bool, now: Date
    ) async throws -> InstallAttributionResponse? {
        switch try await store.claim(
            clickId: click.id, confidence: answer.attributionConfidence, projectId: click.projectId, installId: installId,
            response: try Self.encode(answer), at: now)
        {
        case .claimed:
            // A click taken back from a weak claim was counted as an install then.
            if !click.isWeaklyClaimed { recordInstall(click, android: android) }
            return answer
        case .answeredBefore(let previous):
            return try Self.decode(previous.response)
        case .clickTaken:
            return nil
        }
    }

    private func answerNone(
        _ message: String, project: Project, installId: String?, ipVersion: IPAddress.Version?, now: Date
    ) async throws -> InstallAttributionResponse {
        let answer = DeferredLinkAnswer.none(message: message, requestIpVersion: ipVersion)
        if case .answeredBefore(let previous) = try await store.claim(
            clickId: nil, confidence: nil, projectId: project.id, installId: installId, response: try Self.encode(answer), at: now)
        {
            return try Self.decode(previous.response)
        }
        return answer
    }

    private func recordInstall(_ click: PendingClick, android: Bool) {
        guard let linkId = click.linkId else { return }
        events.record(linkId: linkId, platform: android ? .android : .iPhone, events: [.appInstall, .appFirstOpen])
    }

    /// The answer for a claimed click: its link resolved now. A link disabled or gone since leaves the install
    /// without a deep link, saying so.
    func answer(
        _ click: PendingClick, android: Bool, confidence: AttributionConfidence, message: String, ipVersion: IPAddress.Version?
    ) async -> InstallAttributionResponse {
        guard let resolved = try? await resolve(click.requestedLink) else {
            return DeferredLinkAnswer.none(
                message: "The link clicked before the install (\(click.requestedLink.prefix(200))) has since been disabled or removed.",
                requestIpVersion: ipVersion)
        }
        return DeferredLinkAnswer.matched(
            parameters: resolved.link.parameters, android: android, requestedLink: click.requestedLink,
            resolvedLink: resolved.longLink, confidence: confidence, message: message, requestIpVersion: ipVersion)
    }

    /// The click id a claim carries: `rc` of the clipboard's claim link (iOS), `relink_click` of the install
    /// referrer (Android).
    static func token(_ request: InstallAttributionRequest, android: Bool) -> String? {
        if !android, let link = request.uniqueMatchLinkToCheck, let query = AbsoluteURI(link)?.query {
            return parameter("rc", in: query)
        }
        if android, let referrer = request.installReferrer {
            return parameter(StoreURL.clickReferrerKey, in: referrer)
        }
        return nil
    }

    static func parameter(_ name: String, in query: String) -> String? {
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.count == 2, parts[0] == name, let value = PercentEncoding.decode(parts[1]), ShortCode(Substring(value)) != nil {
                return value
            }
        }
        return nil
    }

    static func fingerprint(
        _ request: InstallAttributionRequest, android: Bool, hashes: AddressHasher.Hashes?
    ) -> DeviceFingerprint {
        let device = request.device
        var languages: [String] = []
        for code in [device?.languageCodeFromWebview, device?.languageCodeRaw, device?.languageCode] {
            if let code, let language = LanguageList.primary(code), !languages.contains(language) { languages.append(language) }
        }
        let platform: Platform = android ? .android : .iPhone
        return DeviceFingerprint(
            addressHash: hashes?.address, networkHash: hashes?.network, ipVersion: hashes?.version,
            osVersion: DeviceFingerprint.majorMinor(android ? request.osVersion : (request.iosVersion ?? request.osVersion)),
            device: DeviceFingerprint.deviceFamily(modelName: device?.deviceModelName, platform: platform)?.lowercased(),
            languages: languages,
            screen: DeviceFingerprint.screen(width: device?.screenResolutionWidth?.int, height: device?.screenResolutionHeight?.int),
            timeZone: device?.timezone.flatMap { $0.isEmpty ? nil : $0 })
    }

    static let installIdRule = "installId must be 1 to 128 characters A-Z, a-z, 0-9, '-', '_' and '.'."

    static func isValidInstallId(_ installId: String) -> Bool {
        (1...128).contains(installId.utf8.count)
            && installId.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                    || byte == UInt8(ascii: ".")
            }
    }

    static func encode(_ answer: InstallAttributionResponse) throws -> String {
        String(decoding: try JSONResponse.encoder.encode(answer), as: UTF8.self)
    }

    static func decode(_ text: String) throws -> InstallAttributionResponse {
        try JSONDecoder().decode(InstallAttributionResponse.self, from: Data(text.utf8))
    }

    // MARK: Re-opens

    /// A link on a Relink domain, resolved as a click on it would be.
    struct ResolvedRequest {
        var project: Project
        var link: ResolvedLink
        var linkId: Int64?
        /// The long form of the link.
        var longLink: String
    }

    /// Resolves a short link, long link or route URL: what claims hand to installs and re-opens to apps.
    func resolve(_ text: String) async throws -> ResolvedRequest {
        guard let uri = AbsoluteURI(text), uri.isHTTP, let host = uri.host,
            let match = directory.match(host: uri.port.map { "\(host):\($0)" } ?? host, path: Substring(uri.path.isEmpty ? "/" : uri.path))
        else {
            throw APIError.notFound("Dynamic Link Not Found: \(text.prefix(300)) is not on a Relink link domain.")
        }
        let project = match.project
        let context = LinkValidationContext(linkDomains: configuration.allDomains, project: project)
        let link: ResolvedLink
        var linkId: Int64?
        switch LinkRequest.resolve(
            project: project, prefix: match.prefix, relativePath: match.relativePath, query: uri.query.map { Substring($0) },
            context: context)
        {
        case .longLink(let resolved), .route(let resolved):
            link = resolved
        case .shortLink(let code, _):
            let domain = match.prefix.description
            guard let record = try await cache.link(domain: domain, code: code.value, load: { try await store.link(domain: domain, code: code.value) }),
                record.isActive(at: Date())
            else { throw APIError.notFound("Dynamic Link Not Found: Short URL (\(domain)/\(code)) not found.") }
            linkId = record.id
            link = ResolvedLink(
                kind: .shortLink(code.value), url: record.shortLink, ownParameters: record.parameters,
                parameters: project.applyingDefaults(to: record.parameters, fillingApps: false))
        case .notFound:
            throw APIError.notFound("Dynamic Link Not Found: \(text.prefix(300))")
        }
        if let error = link.errors.first { throw APIError.invalidArgument(error.message) }
        if let violation = project.allowlist.violations(in: link.parameters, projectDomains: project.domains).first {
            throw APIError.invalidArgument(violation.description)
        }
        let longLink: String
        if case .longLink = link.kind { longLink = link.url } else { longLink = LongLink(prefix: match.prefix, parameters: link.parameters).url }
        return ResolvedRequest(project: project, link: link, linkId: linkId, longLink: longLink)
    }

    /// A link opened inside the installed app, resolved to its deep link; counts `APP_RE_OPEN` for short links,
    /// once per install (else client address), link and hour.
    func reopen(_ request: ReopenAttributionRequest, clientAddress: String?, keyProject: Project?) async throws -> ReopenAttributionResponse {
        guard let text = request.requestedLink?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw APIError.invalidArgument("requestedLink is required.")
        }
        if let installId = request.installId, !Self.isValidInstallId(installId) {
            throw APIError.invalidArgument(Self.installIdRule)
        }
        let resolved = try await resolve(text)
        let project = resolved.project
        if let keyProject, keyProject.id != project.id {
            throw APIError.permissionDenied("The link belongs to another project than this API key.")
        }
        var android = false
        if let bundle = request.bundleId, !bundle.isEmpty {
            if project.android.contains(where: { $0.packageName == bundle }) {
                android = true
            } else if project.iOSApp(bundleId: bundle) == nil {
                throw APIError.permissionDenied("The app '\(bundle)' is not an app of the link's project.")
            }
        }
        let parameters = resolved.link.parameters
        guard let deepLink = android ? (parameters.al ?? parameters.link) : parameters.link else {
            throw APIError.invalidArgument("The link has no deep link.")
        }
        if let linkId = resolved.linkId {
            // The network as per-address limits count it: an IPv4 address, an IPv6 /64.
            let hashes = hasher.hashes(of: clientAddress)
            let network = hashes.map { $0.version == .v4 ? $0.address : $0.network } ?? "unknown"
            if reopens.shouldCount(linkId: linkId, installId: request.installId, network: network) {
                events.record(linkId: linkId, platform: android ? .android : .iPhone, event: .appReOpen)
            }
        }
        return ReopenAttributionResponse(deepLink: deepLink, resolvedLink: resolved.longLink, parameters: parameters)
    }
}
