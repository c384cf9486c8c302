import Foundation
import Logging
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// Deferred deep links: keeping clicks that may lead to an install, and handing each to the one install that
/// claims it.
final class DeferredLinkService: Sendable {
    let store: any RelinkStore
    let configuration: RelinkConfiguration
    let resolver: LinkResolver
    let recorder: DeferredClickRecorder
    let events: EventRecorder
    let hasher: AddressHasher
    let reopens = ReopenDeduplicator()
    let metrics: RelinkMetrics?
    let logger: Logger
    /// Outgoing `install.claimed`, `app.first_open` and `app.re_open` events.
    let webhooks: WebhookService?
    /// Unwraps an email service's tracking URL that opened the app (nil: no project has a tracking domain).
    let clickTracking: ClickTrackingProxy?
    /// Shadow scorings running (see `scoreShadowMatch`).
    private let shadowScorings = NIOLockedValueBox(0)
    static let maximumShadowScorings = 32

    /// Bounds the "no match" answers kept per client network (nil: all are kept).
    let limiter: ClientLimiter?

    init(
        resolver: LinkResolver, recorder: DeferredClickRecorder, events: EventRecorder, hasher: AddressHasher,
        metrics: RelinkMetrics? = nil, logger: Logger = Logger(label: "relink.deferred"), webhooks: WebhookService? = nil,
        clickTracking: ClickTrackingProxy? = nil, limiter: ClientLimiter? = nil
    ) {
        self.limiter = limiter
        self.webhooks = webhooks
        self.clickTracking = clickTracking
        self.store = resolver.store
        self.configuration = resolver.configuration
        self.resolver = resolver
        self.recorder = recorder
        self.events = events
        self.hasher = hasher
        self.metrics = metrics
        self.logger = logger
    }

    /// 22 base-62 characters: the second, then 95 random bits, so click ids cannot be guessed or enumerated, and
    /// the store's index of them grows at its end (see `ShortCodeGenerator.timeOrdered`).
    static func newClickID() -> String {
        var generator = RandomPool.Generator()
        return ShortCodeGenerator.timeOrdered(secondsSince1970: Int(Date().timeIntervalSince1970), using: &generator)
    }

    /// `…?rc=<click id>&_icp=1`: the link the preview page copies for the app to claim (FDL's marker last).
    static func claimURL(for link: ResolvedLink, clickID: String) -> String {
        ClaimLink.url(for: link.url, clickID: clickID)
    }

    // MARK: Capture

    /// Synchronous: a click computes it on its own thread, with no suspension (and so no executor hop) on the way.
    func fingerprint(client: DetectedClient, clientAddress: String?, userAgent: String, acceptLanguage: String?) -> DeviceFingerprint {
        let client = PlatformDetector.addingDeviceDetails(to: client, userAgent: userAgent)
        let hashes = hasher.hashes(of: clientAddress)
        return DeviceFingerprint(
            addressHash: hashes?.address, networkHash: hashes?.network, ipVersion: hashes?.version,
            osVersion: DeviceFingerprint.majorMinor(client.osVersion), device: DeviceFingerprint.boundedText(client.deviceModel?.lowercased()),
            languages: acceptLanguage.map(LanguageList.fromAcceptLanguage) ?? [])
    }

    /// Keeps a store-bound click from `platform` for the install it may lead to; clicks from desktops,
    /// crawlers and other clients lead to none and are not kept.
    func capture(
        clickID: String, project: Project, link: ResolvedLink, linkId: Int64?, platform: Platform, fingerprint: DeviceFingerprint,
        variant: String? = nil
    ) {
        guard let appPlatform = AppPlatform(platform) else { return }
        recorder.record(
            PendingClick(
                id: clickID, projectId: project.id, platform: appPlatform, linkId: linkId,
                // Never with a claim token: a claim link opened in a browser must not hand its token to another install.
                appId: Self.appId(link.parameters, platform: platform), requestedLink: ClaimLink.withoutToken(link.url), createdAt: Date(),
                fingerprint: fingerprint, variant: variant))
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

    /// The app that claims, checked against routes.json and the API key.
    struct ClaimingApp {
        var project: Project
        var platform: AppPlatform
        /// Its bundle ID or package name.
        var bundle: String
    }

    /// What every step of one claim shares.
    struct Claim {
        var app: ClaimingApp
        /// The install's key in the store (`installKey`), when the claim names an install id.
        var installKey: String?
        /// The claiming device's address, hashed with the current secret.
        var hashes: AddressHasher.Hashes?
        var now: Date
        /// The claiming device's address, for its network's budgets only.
        var clientAddress: String?

        var ipVersion: IPAddress.Version? { hashes?.version }
    }

    /// An install's first launch asks for the link clicked before it: a click named by the claim (UNIQUE) first,
    /// then the clicks from this address or network, matched on the device's signals. A click goes to one
    /// install, and an install that asks again gets its first answer.
    func claim(_ request: InstallAttributionRequest, clientAddress: String?, keyProject: Project?) async throws -> InstallAttributionResponse {
        let app = try claimingApp(request, keyProject: keyProject)
        let installKey = try request.installId.map { installId in
            guard Self.isValidInstallId(installId) else { throw APIError.invalidArgument(Self.installIdRule) }
            return Self.installKey(installId, app: app)
        }
        if let installKey, let previous = try await store.installClaim(projectId: app.project.id, installId: installKey) {
            return try Self.decode(previous.response)
        }
        // Clicks made a moment ago may still be in memory: a claim made without them would be kept for the install id.
        guard await recorder.flush() else { throw StoreError.unwrittenPendingClicks }
        let claim = Claim(app: app, installKey: installKey, hashes: hasher.hashes(of: clientAddress), now: Date(), clientAddress: clientAddress)
        if let answer = try await claimNamedClick(request, claim, clientAddress: clientAddress) { return answer }
        return try await claimByFingerprint(request, claim, clientAddress: clientAddress)
    }

    /// The project and platform of the app `request` comes from.
    /// - Throws: INVALID_ARGUMENT for an unknown platform or app, PERMISSION_DENIED for another project's key.
    func claimingApp(_ request: InstallAttributionRequest, keyProject: Project?) throws -> ClaimingApp {
        // iOS when absent: FDL's REST API was iOS-only.
        let platform: AppPlatform
        if let text = request.platform {
            guard let parsed = AppPlatform(apiValue: text) else {
                throw APIError.invalidArgument("platform must be IOS or ANDROID, got '\(text)'.")
            }
            platform = parsed
        } else {
            platform = .iOS
        }
        guard let bundle = request.bundleId?.trimmingCharacters(in: .whitespaces), !bundle.isEmpty else {
            throw APIError.invalidArgument("bundleId is required: the app's bundle ID (iOS) or package name (Android).")
        }
        guard let project = configuration.projects.first(where: { $0.hasApp(bundle, on: platform) }) else {
            throw APIError.invalidArgument("No project has an \(platform.displayName) app '\(bundle)'; add it to routes.json.")
        }
        if let keyProject, keyProject.id != project.id {
            throw APIError.permissionDenied("The app '\(bundle)' belongs to another project than this API key.")
        }
        return ClaimingApp(project: project, platform: platform, bundle: bundle)
    }

    /// The click the claim names (the clipboard's claim link, the install referrer), when it is this app's and
    /// recent: UNIQUE. Nil when the claim names none, so that fingerprints are tried.
    private func claimNamedClick(
        _ request: InstallAttributionRequest, _ claim: Claim, clientAddress: String?
    ) async throws -> InstallAttributionResponse? {
        let app = claim.app
        guard let token = Self.token(request, platform: app.platform),
            let click = try await store.pendingClick(id: token), click.projectId == app.project.id, click.platform == app.platform,
            click.appId == nil || click.appId == app.bundle,
            claim.now.timeIntervalSince(click.createdAt) <= TimeInterval(app.project.deferred.tokenWindowHours) * 3600
        else { return nil }
        var answer = try await answer(
            click, platform: app.platform, confidence: .unique, message: "Matched by the click's own link.", ipVersion: claim.ipVersion)
        if app.project.deferred.debug {
            let age = Int(claim.now.timeIntervalSince(click.createdAt))
            answer.debug = AttributionDebug(
                method: "token", note: "The claim named its click (\(age) s before the claim): a UNIQUE match, whatever the signals say.")
        }
        var tookClick = false
        if let result = try await take(click, answer: answer, claim, took: &tookClick) {
            // Scored after the answer, off the claim's path: what fingerprints alone would have said. At most
            // `maximumShadowScorings` at once: past that (a flood of claims) a claim goes unscored.
            if tookClick,
                shadowScorings.withLockedValue({ running in
                    guard running < Self.maximumShadowScorings else { return false }
                    running += 1
                    return true
                })
            {
                Task {
                    await self.scoreShadowMatch(request, claim, token: click, clientAddress: clientAddress)
                    self.shadowScorings.withLockedValue { $0 -= 1 }
                }
            }
            return result
        }
        return try await answerNone(
            "This link was already claimed by another install.", claim,
            debug: app.project.deferred.debug
                ? AttributionDebug(method: "token", note: "The click the claim named was taken by another install before.") : nil)
    }

    /// Live precision: asks the fingerprint matcher about an install whose token named `token`, as if it had
    /// none (with the token's click among the candidates, as it was before the claim took it), and counts whether it
    /// would have picked the same click, per confidence (`shadow_matches`, `relink_shadow_matches_total`).
    func scoreShadowMatch(_ request: InstallAttributionRequest, _ claim: Claim, token: PendingClick, clientAddress: String?) async {
        do {
            let decision = try await fingerprintDecision(request, claim, clientAddress: clientAddress, including: token)
            var confidence: AttributionConfidence?
            var sameClick = false
            if case .matched(let id, let given, _) = decision {
                confidence = given
                sameClick = id == token.id
            }
            try await store.recordShadowMatch(
                projectId: claim.app.project.id, day: EventCounterKey.day(of: claim.now), confidence: confidence, sameClick: sameClick)
            metrics?.shadowMatch(confidence, sameClick: sameClick)
        } catch {
            logger.debug("shadow match not scored", metadata: ["error": "\(error)"])
        }
    }

    /// What the fingerprint matcher decides for this claim right now, with `extra` among the candidates.
    private func fingerprintDecision(
        _ request: InstallAttributionRequest, _ claim: Claim, clientAddress: String?, including extra: PendingClick
    ) async throws -> AttributionMatcher.Decision {
        let install = try await FingerprintClaim(request, claim, clientAddress: clientAddress, service: self)
        var candidates = try await install.candidates(self)
        if !candidates.contains(where: { $0.id == extra.id }) { candidates.append(extra) }
        return install.assess(among: candidates, unclaimed: extra.id).decision
    }

    /// Recent clicks from this address or network, matched on the device's signals; when another install takes
    /// the winner first, the match is made again without it (three times at most).
    private func claimByFingerprint(
        _ request: InstallAttributionRequest, _ claim: Claim, clientAddress: String?
    ) async throws -> InstallAttributionResponse {
        let app = claim.app
        let install = try await FingerprintClaim(request, claim, clientAddress: clientAddress, service: self)
        var excluded: Set<String> = []
        var debug: AttributionDebug?
        for _ in 0..<3 {
            var candidates = try await install.candidates(self)
            candidates.removeAll { excluded.contains($0.id) }
            let assessment = install.assess(among: candidates)
            if app.project.deferred.debug { debug = install.debug(assessment, method: "fingerprint") }
            let decision = assessment.decision
            guard case .matched(let id, let confidence, let message) = decision, let click = candidates.first(where: { $0.id == id }) else {
                if case .none(let message) = decision { return try await answerNone(message, claim, debug: debug) }
                break
            }
            // Below the project's minimum the guess is not given, and the click stays for its owner.
            guard confidence >= app.project.deferred.minimumConfidence else {
                debug?.note =
                    "The likeliest click was only \(confidence.rawValue); the project's minimumConfidence is "
                    + "\(app.project.deferred.minimumConfidence.rawValue), so no link is given and the click stays for its owner."
                return try await answerNone(AttributionMatcher.noMatchMessage, claim, debug: debug)
            }
            var answer = try await answer(click, platform: app.platform, confidence: confidence, message: message, ipVersion: claim.ipVersion)
            answer.debug = debug
            var took = false
            if let result = try await take(click, answer: answer, claim, took: &took) { return result }
            excluded.insert(click.id)  // another install was faster: look again without it
        }
        debug?.note = "Other installs took the likeliest clicks while this one was being matched."
        return try await answerNone(AttributionMatcher.noMatchMessage, claim, debug: debug)
    }

    /// An install as the fingerprint matcher sees it: its fingerprint, window and address activity, read once per
    /// claim; its candidates are read again for each try.
    struct FingerprintClaim {
        var claim: Claim
        var fingerprint: DeviceFingerprint
        var window: TimeInterval
        /// Clicks kept before a secret rotation carry hashes under the previous secret: those are looked up too, and
        /// translated to the current secret's hashes, so the matcher sees one address as one.
        var previous: [AddressHasher.Hashes]
        var activity: AddressActivity
        /// When the app says it was installed: the delay from each click is measured to it.
        var installedAt: Date?

        init(_ request: InstallAttributionRequest, _ claim: Claim, clientAddress: String?, service: DeferredLinkService) async throws {
            self.claim = claim
            installedAt = request.installedAt
            fingerprint = DeferredLinkService.fingerprint(request, platform: claim.app.platform, hashes: claim.hashes)
            window = TimeInterval(claim.app.project.deferred.fingerprintWindowMinutes) * 60
            previous = service.hasher.previousHashes(of: clientAddress)
            activity = try await service.addressActivity(fingerprint, claim, window: window, previous: previous)
        }

        func candidates(_ service: DeferredLinkService) async throws -> [PendingClick] {
            try await service.candidateClicks(fingerprint, claim, since: claim.now.addingTimeInterval(-window), previous: previous)
        }

        /// The matcher's assessment of `clicks`; `unclaimed` is treated as not yet claimed (the shadow scoring's
        /// token click, which its own claim has just taken).
        func assess(among clicks: [PendingClick], unclaimed: String? = nil) -> AttributionAssessment {
            AttributionMatcher.assess(
                install: fingerprint,
                candidates: clicks.map {
                    .init(id: $0.id, createdAt: $0.createdAt, fingerprint: $0.fingerprint, weaklyClaimed: $0.id != unclaimed && $0.isWeaklyClaimed)
                }, now: claim.now, window: window, addressActivity: activity.clicks, similarActivity: activity.similarClicks,
                crowdInWindow: activity.recentClicks >= claim.app.project.deferred.candidateBounds.perAddress ? activity.recentClicks : 0,
                installedAt: installedAt)
        }

        /// Candidates a debug answer lists at most, likeliest first.
        static let debugCandidates = 50

        /// `assessment` as a debug answer shows it: click ids replaced by ranks, at most `debugCandidates`.
        func debug(_ assessment: AttributionAssessment, method: String) -> AttributionDebug {
            let considered = assessment.candidates.filter { $0.excluded == nil }.count
            let note =
                assessment.candidates.isEmpty
                ? "No click of this app came from this device's address or network in the last \(Int(window / 60)) minutes."
                : "\(considered) of \(assessment.candidates.count) recent clicks from this address or network were weighed; "
                    + assessment.message
            var shown = assessment.redacted()
            let omitted = max(0, shown.candidates.count - Self.debugCandidates)
            shown.candidates.removeLast(omitted)
            // The install time as the matcher used it: one in the future is ignored.
            let skew = AttributionModel.calibrated.clockSkew
            let installed = installedAt.flatMap { $0 <= claim.now.addingTimeInterval(skew) ? max(0, Int(claim.now.timeIntervalSince($0))) : nil }
            return AttributionDebug(
                method: method, note: omitted > 0 ? note + " (the \(omitted) least likely are not listed)" : note,
                install: .init(fingerprint, installedSecondsBeforeClaim: installed, window: window), assessment: shown)
        }
    }

    /// How busy this address has been lately, under the current and previous secrets: each read counts at most
    /// `AddressActivity.countedClicks`, and a crowd past that is estimated from their rate.
    func addressActivity(
        _ fingerprint: DeviceFingerprint, _ claim: Claim, window: TimeInterval, previous: [AddressHasher.Hashes]
    ) async throws -> AddressActivity {
        var activity = AddressActivity(clicks: 0, similarClicks: 0)
        for hashes in [claim.hashes].compactMap({ $0 }) + previous {
            var keyed = fingerprint
            keyed.addressHash = hashes.address
            let counted = try await store.addressActivity(
                projectId: claim.app.project.id, addressHash: hashes.address,
                since: claim.now.addingTimeInterval(-AttributionMatcher.crowdPeriod), recentSince: claim.now.addingTimeInterval(-window),
                platform: claim.app.platform, fingerprint: keyed, limit: AddressActivity.countedClicks)
            activity = activity + counted.estimated(now: claim.now, window: window)
        }
        return activity
    }

    /// The clicks this install may be, from its address or network, under the current and previous secrets (the
    /// latter translated to the current secret's hashes): each read bounded by the project's `CandidateBounds`.
    func candidateClicks(
        _ fingerprint: DeviceFingerprint, _ claim: Claim, since: Date, previous: [AddressHasher.Hashes]
    ) async throws -> [PendingClick] {
        let app = claim.app
        let bounds = app.project.deferred.candidateBounds
        // Clicks dated past the matcher's allowance for clock skew would only take places within the bounds.
        let until = claim.now.addingTimeInterval(AttributionMatcher.clockSkewBetweenInstances)
        var candidates = try await store.candidateClicks(
            projectId: app.project.id, platform: app.platform, appId: app.bundle, since: since, until: until, fingerprint: fingerprint,
            bounds: bounds)
        guard let hashes = claim.hashes else { return candidates }
        for old in previous {
            var keyed = fingerprint
            (keyed.addressHash, keyed.networkHash) = (old.address, old.network)
            for var click in try await store.candidateClicks(
                projectId: app.project.id, platform: app.platform, appId: app.bundle, since: since, until: until, fingerprint: keyed,
                bounds: bounds)
            {
                if click.fingerprint.addressHash == old.address { click.fingerprint.addressHash = hashes.address }
                if click.fingerprint.networkHash == old.network { click.fingerprint.networkHash = hashes.network }
                candidates.append(click)
            }
        }
        return candidates
    }

    /// Takes `click` for this install with `answer`: that answer when this install won the click, the earlier
    /// answer when this install asked before, nil when another install took the click.
    private func take(
        _ click: PendingClick, answer: InstallAttributionResponse, _ claim: Claim, took: inout Bool
    ) async throws -> InstallAttributionResponse? {
        let platform = claim.app.platform
        let confidence = answer.attributionConfidence
        // Written only if the store finds the click unclaimed: one taken back from a weak claim was counted as an
        // install then, and its events sent (also when that claim committed after this one read the click).
        let events = webhooks?.deliveries(of: [.installClaimed, .firstOpen], projectId: click.projectId) { (_: String) in
            InstallEventData(
                link: ClaimLink.withoutToken(click.requestedLink), platform: platform.rawValue, confidence: confidence?.rawValue,
                variant: click.variant)
        }
        switch try await store.claim(
            clickId: click.id, confidence: confidence, projectId: click.projectId, installId: claim.installKey,
            response: try Self.encodeForRetries(answer), at: claim.now, events: events)
        {
        case .claimed:
            took = true
            if let linkId = click.linkId {
                self.events.record(
                    linkId: linkId, platform: platform.eventPlatform, events: [.appInstall, .appFirstOpen], variant: click.variant,
                    confidence: confidence)
            }
            return answer
        case .takenBack:
            took = true
            return answer
        case .answeredBefore(let previous):
            return try Self.decode(previous.response)
        case .clickTaken:
            return nil
        }
    }

    /// No match, kept for the install id so a retry gets the same answer, while the network's budget of kept
    /// "no match" answers lasts (each is a row for the claims' retention; a claim that matches uses up a kept click
    /// instead). Past it the answer is given, not kept: a retry is matched again, and an install that got its answer
    /// does not ask again.
    private func answerNone(_ message: String, _ claim: Claim, debug: AttributionDebug? = nil) async throws -> InstallAttributionResponse {
        var answer = DeferredLinkAnswer.none(message: message, requestIpVersion: claim.ipVersion)
        answer.debug = debug
        if let limiter, case .failure = limiter.acquire(.unmatchedClaim, clientAddress: claim.clientAddress) { return answer }
        if case .answeredBefore(let previous) = try await store.claim(
            clickId: nil, confidence: nil, projectId: claim.app.project.id, installId: claim.installKey, response: try Self.encodeForRetries(answer),
            at: claim.now)
        {
            return try Self.decode(previous.response)
        }
        return answer
    }

    /// The `data` of install and open webhook events: the link, never the device's signals.
    struct InstallEventData: Encodable, Sendable {
        var link: String
        var platform: String
        var confidence: String?
        var variant: String?
    }

    /// The answer for a claimed click: its link resolved now. A link disabled or gone since leaves the install
    /// without a deep link, saying so.
    /// - Throws: the store's error when the link could not be looked up.
    func answer(
        _ click: PendingClick, platform: AppPlatform, confidence: AttributionConfidence, message: String, ipVersion: IPAddress.Version?
    ) async throws -> InstallAttributionResponse {
        // Clicks kept before tokens were stripped at capture may still carry one.
        let requestedLink = ClaimLink.withoutToken(click.requestedLink)
        let target: LinkResolver.Target
        do {
            target = try await resolver.resolve(linkURL: requestedLink)
        } catch is APIError {
            return DeferredLinkAnswer.none(
                message: "The link clicked before the install (\(requestedLink.leadingScalars(200))) has since been disabled or removed.",
                requestIpVersion: ipVersion)
        }
        // The variant the click was given, as it stands now (rules are per click and not replayed).
        var parameters = target.link.parameters
        if let name = click.variant, let destination = target.shortLink?.rules?.variant(named: name) {
            parameters = destination.applied(to: parameters)
        }
        return DeferredLinkAnswer.matched(
            parameters: parameters, platform: platform, requestedLink: requestedLink,
            resolvedLink: target.longLink, confidence: confidence, message: message, requestIpVersion: ipVersion)
    }

    /// The click id a claim carries: `rc` of the clipboard's claim link (iOS), `relink_click` of the install
    /// referrer (Android).
    static func token(_ request: InstallAttributionRequest, platform: AppPlatform) -> String? {
        if platform == .iOS, let link = request.uniqueMatchLinkToCheck, let query = AbsoluteURI(link)?.query {
            return parameter("rc", in: query)
        }
        if platform == .android, let referrer = request.installReferrer {
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
        _ request: InstallAttributionRequest, platform: AppPlatform, hashes: AddressHasher.Hashes?
    ) -> DeviceFingerprint {
        let device = request.device
        var languages: [String] = []
        for code in [device?.languageCodeFromWebview, device?.languageCodeRaw, device?.languageCode] {
            if let code, let language = LanguageList.primary(code), !languages.contains(language) { languages.append(language) }
        }
        return DeviceFingerprint(
            addressHash: hashes?.address, networkHash: hashes?.network, ipVersion: hashes?.version,
            osVersion: DeviceFingerprint.majorMinor(platform == .android ? request.osVersion : (request.iosVersion ?? request.osVersion)),
            device: DeviceFingerprint.deviceFamily(modelName: device?.deviceModelName, platform: platform.eventPlatform)?.lowercased(),
            languages: languages,
            screen: DeviceFingerprint.screen(width: device?.screenResolutionWidth?.int, height: device?.screenResolutionHeight?.int),
            timeZone: DeviceFingerprint.boundedText(device?.timezone))
    }

    /// What an install's answer is kept under: its id within the app that claims (platform and bundle), so a retry
    /// is answered only for that app; the same id sent by another app of the project is another install. The network
    /// is not part of it: a phone retrying may have moved from Wi-Fi to its carrier.
    static func installKey(_ installId: String, app: ClaimingApp) -> String {
        "\(app.platform.rawValue)/\(app.bundle)/\(installId)"
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

    /// The answer as kept for the install's retries: without `debug`, which can be large (every candidate) and is
    /// for the first answer only.
    static func encodeForRetries(_ answer: InstallAttributionResponse) throws -> String {
        var kept = answer
        kept.debug = nil
        return try encode(kept)
    }

    static func decode(_ text: String) throws -> InstallAttributionResponse {
        try JSONDecoder().decode(InstallAttributionResponse.self, from: Data(text.utf8))
    }

    // MARK: Re-opens

    /// A link opened inside the installed app, resolved to its deep link (and a route's path parameters); counts
    /// `APP_RE_OPEN` for short links, once per install (else client address), link and hour, unless the app only
    /// looks the link up (`countAsReopen` false).
    func reopen(
        _ request: ReopenAttributionRequest, clientAddress: String?, keyProject: Project?, userAgent: String? = nil
    ) async throws -> ReopenAttributionResponse {
        guard var text = request.requestedLink?.trimmingCharacters(in: .whitespaces), !text.isEmpty else {
            throw APIError.invalidArgument("requestedLink is required.")
        }
        if let installId = request.installId, !Self.isValidInstallId(installId) {
            throw APIError.invalidArgument(Self.installIdRule)
        }
        // An email service's tracking URL: the service is asked once (it counts the click), and the link it sends the
        // tap to is the one opened.
        if let unwrapped = try await clickTracking?.unwrap(text, clientAddress: clientAddress, userAgent: userAgent, logger: logger) {
            text = unwrapped
        }
        let target = try await resolver.resolve(linkURL: text)
        let project = target.project
        if let keyProject, keyProject.id != project.id {
            throw APIError.permissionDenied("The link belongs to another project than this API key.")
        }
        // A link over its click limit no longer hands out its deep link, as an expired one does not: a one-time
        // invitation opened by the installed app must not open again there. A re-open takes none of its clicks.
        if let record = target.shortLink?.record, let limit = record.maxClicks,
            try await events.clickCount(linkId: record.id, inStore: { try await store.clickCount(linkId: record.id) }) >= limit
        {
            throw APIError.notFound("Dynamic Link Not Found: Short URL (\(record.domain)/\(record.code)) is no longer available.")
        }
        // iOS unless the app is one of the project's Android apps (FDL's re-open API was iOS-only).
        var platform = AppPlatform.iOS
        if let bundle = request.bundleId, !bundle.isEmpty {
            if project.hasApp(bundle, on: .android) {
                platform = .android
            } else if !project.hasApp(bundle, on: .iOS) {
                throw APIError.permissionDenied("The app '\(bundle)' is not an app of the link's project.")
            }
        }
        let parameters = target.link.parameters
        guard let deepLink = platform == .android ? (parameters.al ?? parameters.link) : parameters.link else {
            throw APIError.invalidArgument("The link has no deep link.")
        }
        if request.countAsReopen != false, let linkId = target.shortLink?.record.id {
            // The network as per-address limits count it: an IPv4 address, an IPv6 /64.
            let hashes = hasher.hashes(of: clientAddress)
            let network = hashes.map { $0.version == .v4 ? $0.address : $0.network } ?? "unknown"
            if reopens.shouldCount(linkId: linkId, installId: request.installId, network: network) {
                events.record(linkId: linkId, platform: platform.eventPlatform, event: .appReOpen)
                await webhooks?.emit(
                    .reOpen, projectId: target.project.id,
                    data: InstallEventData(link: target.link.url, platform: platform.rawValue, confidence: nil, variant: nil))
            }
        }
        return ReopenAttributionResponse(
            deepLink: deepLink, resolvedLink: target.longLink, parameters: parameters, routeParameters: target.routeParameters)
    }
}
