import Crypto
import Foundation
import NIOConcurrencyHelpers
import RelinkCore
import RelinkStore

/// Minting and managing short links: FDL's request in, a stored link out, with FDL's errors.
public final class ShortLinkService: Sendable {
    let store: any RelinkStore
    let resolver: LinkResolver
    let cache: LinkCache
    /// Fills crawler cards from destination pages; nil where nothing is fetched (some tests).
    let previews: PreviewService?
    /// Outgoing `link.created` and `link.updated` events; nil in some tests.
    let webhooks: WebhookService?
    /// Whether clicks carry a country (`--country-header` or `--geoip`): country rules match only then.
    let knowsCountries: Bool
    /// Per domain, the length `SHORT` codes start at: raised when random codes keep colliding.
    private let shortLengths = NIOLockedValueBox<[String: Int]>([:])

    init(resolver: LinkResolver, previews: PreviewService? = nil, webhooks: WebhookService? = nil, knowsCountries: Bool = true) {
        self.knowsCountries = knowsCountries
        self.webhooks = webhooks
        self.store = resolver.store
        self.resolver = resolver
        self.cache = resolver.cache
        self.previews = previews
    }

    /// What a create or update request asks for, checked: the domain, its project, the parameters.
    struct Target {
        var prefix: DomainURIPrefix
        var project: Project
        var parameters: LinkParameters
        var warnings: [LinkWarning]

        var canonicalLongLink: String { LongLink(prefix: prefix, parameters: parameters).url }
    }

    // MARK: Minting

    func mint(_ request: CreateShortLinkRequest, caller: APIKeyAuthenticator.Caller) async throws -> (ShortLinkRecord, [LinkWarning]) {
        // Twice at most: a link that answered the request can be edited before the write below, and no longer answers it.
        for _ in 0..<2 {
            var (record, warnings) = try await mintRecord(request, caller: caller)
            if request.fetchPreview == true, !record.fetchPreview {
                // The same link minted again, now asking for its page's card.
                let answering = record
                let events = webhooks?.deliveries(of: [.linkUpdated], projectId: record.projectId) { [self] in managed($0) }
                let (stored, saved) = try await store.updateLink(id: record.id, events: events) { stored in
                    // Edited since it was found (each edit stamps updatedAt): mint again rather than answer, or change, a
                    // link that may no longer answer this request.
                    guard stored.updatedAt == answering.updatedAt, !stored.fetchPreview else { return nil }
                    var asking = stored
                    asking.fetchPreview = true
                    return asking
                }
                if saved == nil, stored.updatedAt != answering.updatedAt { continue }
                record = saved ?? stored
                resolver.forget(record)
            }
            if let previews, record.preview == nil, previews.fetches(record) { previews.enqueue(record) }
            return (record, warnings + countryWarnings(record.rules))
        }
        throw APIError.aborted("The link this request names was edited while it was minted; send the request again.")
    }

    /// The warning for rules that ask for a country this server cannot know: stored, accepted, never matching.
    func countryWarnings(_ rules: LinkRules?) -> [LinkWarning] {
        guard !knowsCountries, rules?.usesCountries == true else { return [] }
        return [Self.countryWarning]
    }

    static let countryWarning = LinkWarning(
        .countryRulesWithoutCountrySource, parameter: "rules",
        message:
            "A rule asks for the click's country, but this server has no country source (--country-header or --geoip): the rule never matches.")

    private func mintRecord(_ request: CreateShortLinkRequest, caller: APIKeyAuthenticator.Caller) async throws -> (ShortLinkRecord, [LinkWarning]) {
        let target = try self.target(longDynamicLink: request.longDynamicLink, dynamicLinkInfo: request.dynamicLinkInfo, caller: caller)
        let rules = try checked(request.rules, project: target.project)
        let limits = try limits(
            expireTime: request.expireTime, maxClicks: request.maxClicks, expiredLink: request.expiredLink, project: target.project)
        let option = try Self.suffixOption(request.suffix)
        let name = try Self.checkedName(request.name)
        let canonical = target.canonicalLongLink
        let domain = target.prefix.description
        let now = Date()
        if option == .custom {
            let suffix = request.suffix?.customSuffix ?? ""
            try checkCustomSuffix(suffix, project: target.project)
            let draft = ShortLinkDraft(
                projectId: target.project.id, domain: domain, code: suffix, longLink: canonical, parameters: target.parameters,
                suffixOption: .custom, idempotencyKey: nil, createdAt: now, name: name, fetchPreview: request.fetchPreview ?? false,
                rules: rules, expiresAt: limits.expiresAt, maxClicks: limits.maxClicks, expiredLink: limits.expiredLink)
            do {
                return (try await inserted(draft), target.warnings)
            } catch StoreError.codeTaken {
                // The same request again gets the same link, while it still answers it; a different link may not take
                // the code.
                let existing = try await store.link(domain: domain, code: suffix)
                if let existing, existing.disabled {
                    throw APIError.alreadyExists(
                        "The custom suffix '\(suffix)' is used by a disabled link on \(domain); enable it (PATCH \"disabled\": false) or choose another."
                    )
                }
                if let existing, existing.longLink == canonical,
                    existing.projectId == target.project.id, existing.rules == rules, existing.maxClicks == limits.maxClicks,
                    existing.expiredLink == limits.expiredLink, existing.expiresAt?.timeIntervalSince1970 == limits.expiresAt?.timeIntervalSince1970,
                    existing.name == name
                {
                    return (existing, target.warnings)
                }
                throw APIError.alreadyExists("The custom suffix '\(suffix)' is already used by another link on \(domain).")
            }
        }
        // The same link with other rules is another link.
        var rulesKey = rules.flatMap { try? Self.sortedEncoder.encode($0) }.map { "\n" + String(decoding: $0, as: UTF8.self) } ?? ""
        if limits.expiresAt != nil || limits.maxClicks != nil || limits.expiredLink != nil {
            rulesKey += "\n\(limits.expiresAt?.timeIntervalSince1970 ?? 0) \(limits.maxClicks ?? 0) \(limits.expiredLink ?? "")"
        }
        // The same link under another name is another link (a name is the console's only handle on it).
        if let name { rulesKey += "\nname " + name }
        let idempotencyKey = Self.idempotencyKey(project: target.project.id, option: option, canonical: canonical + rulesKey)
        if let existing = try await store.link(idempotencyKey: idempotencyKey) { return (existing, target.warnings) }
        var generator = SystemRandomNumberGenerator()
        var length = shortLengths.withLockedValue { $0[domain] } ?? ShortCodeGenerator.minimumShortLength
        var collisions = 0
        for _ in 0..<64 {
            let code =
                option == .short
                ? ShortCodeGenerator.random(length: length, using: &generator) : ShortCodeGenerator.unguessable(using: &generator)
            if RelinkPaths.isReserved(code, project: target.project) { continue }
            let draft = ShortLinkDraft(
                projectId: target.project.id, domain: domain, code: code, longLink: canonical, parameters: target.parameters,
                suffixOption: option, idempotencyKey: idempotencyKey, createdAt: now, name: name, fetchPreview: request.fetchPreview ?? false,
                rules: rules, expiresAt: limits.expiresAt, maxClicks: limits.maxClicks, expiredLink: limits.expiredLink)
            do {
                let record = try await inserted(draft)
                if collisions >= 2 { raiseShortLength(domain: domain, to: length) }
                return (record, target.warnings)
            } catch StoreError.codeTaken {
                // The space at this length is filling up: after a few misses, go one longer.
                collisions += 1
                if option == .short, collisions % 3 == 0 { length += 1 }
            } catch StoreError.idempotencyKeyTaken {
                // The same request, minted concurrently: return that link.
                if let existing = try await store.link(idempotencyKey: idempotencyKey) { return (existing, target.warnings) }
            }
        }
        throw APIError.internal
    }

    private func inserted(_ draft: ShortLinkDraft) async throws -> ShortLinkRecord {
        let events = webhooks?.deliveries(of: [.linkCreated], projectId: draft.projectId) { [self] in managed($0) }
        let record = try await store.insertLink(draft, events: events)
        resolver.remember(record)
        return record
    }

    private func raiseShortLength(domain: String, to length: Int) {
        shortLengths.withLockedValue { lengths in lengths[domain] = max(lengths[domain] ?? 0, length) }
    }

    static func idempotencyKey(project: String, option: SuffixOption, canonical: String) -> String {
        let digest = SHA256.hash(data: Data("\(project)\n\(option.rawValue)\n\(canonical)".utf8))
        return Hex.string(digest)
    }

    static func suffixOption(_ suffix: CreateShortLinkRequest.Suffix?) throws -> SuffixOption {
        switch suffix?.option {
        case nil, "OPTION_UNSPECIFIED", "UNGUESSABLE": return .unguessable
        case "SHORT": return .short
        case "CUSTOM": return .custom
        case let other?:
            throw APIError.invalidArgument(
                "Invalid value at 'suffix.option' (\"\(other)\"): expected UNGUESSABLE, SHORT or CUSTOM.")
        }
    }

    private func checkCustomSuffix(_ suffix: String, project: Project) throws {
        guard ShortCodeGenerator.isValidCustomSuffix(suffix) else {
            throw APIError.invalidArgument(
                "suffix.customSuffix must be 1 to 64 characters A-Z, a-z, 0-9, '_' and '-'; got '\(suffix.leadingScalars(80))'.")
        }
        guard !RelinkPaths.isReserved(suffix, project: project) else {
            throw APIError.invalidArgument("The custom suffix '\(suffix)' is reserved (a Relink path or one of the project's routes).")
        }
    }

    /// What minting would say of `suffix` as a custom code on `domain` (its form, reserved paths, a link that has it);
    /// nil when it is free. For checking a form before it is sent.
    func customSuffixProblem(_ suffix: String, domain: String, project: Project) async throws -> String? {
        do {
            try checkCustomSuffix(suffix, project: project)
        } catch let error as APIError {
            return error.message
        }
        if try await store.link(domain: domain, code: suffix) != nil {
            return "The custom suffix '\(suffix)' is already used by another link on \(domain)."
        }
        return nil
    }

    // MARK: Targets

    /// Reads and checks what a request asks a short link to stand for.
    func target(longDynamicLink: String?, dynamicLinkInfo: DynamicLinkInfo?, caller: APIKeyAuthenticator.Caller) throws -> Target {
        let context = resolver.validationContext(for: caller.project)
        var target: Target
        switch (longDynamicLink, dynamicLinkInfo) {
        case (let text?, nil):
            if resolver.directory.shortLink(text) != nil, !text.contains("link=") {
                throw APIError.invalidArgument("Cannot shorten a short Dynamic Link: \(text)")
            }
            let parsed = LongLink.parse(text, context: context)
            guard let prefix = parsed.prefix else {
                throw APIError.invalidArgument("Long link is not parsable: \(text.leadingScalars(300))")
            }
            let project = try owner(of: prefix, caller: caller)
            if let error = parsed.errors.first { throw APIError.invalidArgument(error.message) }
            target = Target(prefix: prefix, project: project, parameters: parsed.parameters, warnings: parsed.warnings)
        case (nil, let info?):
            let domain: String
            switch (info.domainUriPrefix, info.dynamicLinkDomain) {
            case (let prefix?, nil) where !prefix.isEmpty: domain = prefix
            case (nil, let host?) where !host.isEmpty: domain = host.contains("://") ? host : "https://\(host)"
            default:
                throw APIError.invalidArgument(
                    "Invalid Dynamic Link domain: '\(info.dynamicLinkDomain ?? "")' or Domain Uri Prefix: '\(info.domainUriPrefix ?? "")'. Expecting exactly one."
                )
            }
            guard let prefix = try? DomainURIPrefix(domain) else {
                throw APIError.invalidArgument("Your project does not own Dynamic Links domain: \(domain)")
            }
            let project = try owner(of: prefix, caller: caller)
            let parameters = info.parameters
            if let error = LongLink.lengthError(of: parameters, prefix: prefix) { throw APIError.invalidArgument(error.message) }
            let validation = LinkValidator.validate(parameters, prefix: prefix, context: context)
            if let error = validation.errors.first { throw APIError.invalidArgument(error.message) }
            var warnings = validation.warnings
            if info.analyticsInfo?.googlePlayAnalytics?.gclid != nil {
                warnings.append(LinkWarning(.deprecatedParam, parameter: "gclid", message: "'gclid' is deprecated and ignored."))
            }
            target = Target(prefix: prefix, project: project, parameters: parameters, warnings: warnings)
        case (nil, nil):
            throw APIError.invalidArgument("The request needs a longDynamicLink or a dynamicLinkInfo.")
        case (.some, .some):
            throw APIError.invalidArgument("Give either longDynamicLink or dynamicLinkInfo, not both.")
        }
        // `d` only ever comes from a click; a stored link never shows the debug page by itself.
        target.parameters.d = nil
        if let violation = target.project.allowlist.violations(in: target.parameters, projectDomains: target.project.domains).first {
            throw APIError.invalidArgument(violation.description)
        }
        return target
    }

    /// The project owning `prefix`, which must be the caller's.
    private func owner(of prefix: DomainURIPrefix, caller: APIKeyAuthenticator.Caller) throws -> Project {
        guard let project = resolver.directory.project(owning: prefix) else {
            throw APIError.invalidArgument("Your project does not own Dynamic Links domain: \(prefix)")
        }
        guard project.id == caller.project.id else {
            throw APIError.permissionDenied("Your project does not own Dynamic Links domain: \(prefix)")
        }
        return project
    }

    // MARK: Managing

    /// The caller's stored link for a short link URL.
    func storedLink(_ url: String, caller: APIKeyAuthenticator.Caller) async throws -> ShortLinkRecord {
        guard let (project, prefix, code) = resolver.directory.shortLink(url) else {
            throw APIError.invalidArgument("'\(url.leadingScalars(300))' is not a short link on a Relink domain.")
        }
        guard project.id == caller.project.id else {
            throw APIError.permissionDenied("The short link \(url) belongs to another project.")
        }
        guard let record = try await store.link(domain: prefix.description, code: code.value) else {
            throw APIError.notFound("Short URL (\(prefix.description)/\(code.value)) not found.")
        }
        return record
    }

    func update(_ link: ShortLinkRecord, with request: UpdateLinkRequest, caller: APIKeyAuthenticator.Caller) async throws -> ShortLinkRecord {
        // Applied to the link as stored when the write begins, not as read before: a change made meanwhile (another
        // PATCH, the console, another instance) is kept, not written over.
        let events = webhooks?.deliveries(of: [.linkUpdated], projectId: link.projectId) { [self] in managed($0) }
        let (stored, saved) = try await store.updateLink(id: link.id, events: events) { stored in
            let changed = try self.changed(stored, by: request, caller: caller)
            // Nothing changed (the console's form saved untouched, a PATCH repeated): no write, no new updateTime, no
            // link.updated event for what did not happen.
            return changed == stored ? nil : changed
        }
        guard let saved else { return stored }
        resolver.forget(saved)
        // A new destination has a new page; a link newly asking for its card gets it.
        if let previews, previews.fetches(saved), saved.longLink != stored.longLink || saved.preview == nil { previews.enqueue(saved) }
        return saved
    }

    /// The link as `request` changes it, checked (a 400 naming what is wrong).
    func changed(_ link: ShortLinkRecord, by request: UpdateLinkRequest, caller: APIKeyAuthenticator.Caller) throws -> ShortLinkRecord {
        let original = link
        var link = link
        if request.longDynamicLink != nil || request.dynamicLinkInfo != nil {
            let target = try target(longDynamicLink: request.longDynamicLink, dynamicLinkInfo: request.dynamicLinkInfo, caller: caller)
            guard target.prefix.description == link.domain else {
                throw APIError.invalidArgument("The new long link must be on the short link's domain, \(link.domain).")
            }
            link.parameters = target.parameters
            link.longLink = target.canonicalLongLink
        }
        if let disabled = request.disabled { link.disabled = disabled }
        if let fetchPreview = request.fetchPreview { link.fetchPreview = fetchPreview }
        if let name = request.name { link.name = try Self.checkedName(name) }
        if let project = resolver.configuration.project(id: link.projectId) {
            if let rules = request.rules { link.rules = try checked(rules, project: project) }
            if let maxClicks = request.maxClicks {
                link.maxClicks =
                    maxClicks == 0 ? nil : try limits(expireTime: nil, maxClicks: maxClicks, expiredLink: nil, project: project).maxClicks
            }
            if let expiredLink = request.expiredLink {
                link.expiredLink =
                    expiredLink.isEmpty
                    ? nil : try limits(expireTime: nil, maxClicks: nil, expiredLink: expiredLink, project: project).expiredLink
            }
        }
        if let expireTime = request.expireTime {
            if expireTime.isEmpty {
                link.expiresAt = nil
            } else {
                guard let date = APITime.parse(expireTime) else {
                    throw APIError.invalidArgument("expireTime must be an RFC 3339 time such as 2026-12-31T23:59:59Z, or \"\" to remove it.")
                }
                // The time already stored, sent again, is kept as stored: read back from the database's double it can
                // differ from the parsed one in its last bit, and was then saved (and sent as link.updated) each time.
                if let stored = original.expiresAt, abs(date.timeIntervalSince(stored)) < 0.000_001 {
                    link.expiresAt = stored
                } else {
                    link.expiresAt = date
                }
            }
        }
        // The minting request's key covers the destination, rules, limits and name: once one of them changes, or the
        // link is disabled, the same request again must mint a new link, not return this one.
        if link.longLink != original.longLink || link.rules != original.rules || link.maxClicks != original.maxClicks
            || link.expiredLink != original.expiredLink || link.expiresAt != original.expiresAt || link.name != original.name || link.disabled
        {
            link.idempotencyKey = nil
        }
        return link
    }

    /// Expiry, click limit and the link clicks go to once over, checked (a 400 naming what is wrong).
    func limits(
        expireTime: String?, maxClicks: Int?, expiredLink: String?, project: Project
    ) throws -> (
        expiresAt: Date?, maxClicks: Int?, expiredLink: String?
    ) {
        var expiresAt: Date?
        if let expireTime, !expireTime.isEmpty {
            guard let date = APITime.parse(expireTime) else {
                throw APIError.invalidArgument("expireTime must be an RFC 3339 time such as 2026-12-31T23:59:59Z.")
            }
            expiresAt = date
        }
        if let maxClicks, !(1...1_000_000_000_000).contains(maxClicks) {
            throw APIError.invalidArgument("maxClicks must be a whole number from 1 to 1000000000000 (0 removes it when editing).")
        }
        if let expiredLink {
            guard let uri = AbsoluteURI(expiredLink), uri.isHTTP else {
                throw APIError.invalidArgument("expiredLink must be an http(s) URL.")
            }
            if let domain = LinkValidator.linkDomain(containing: uri, prefix: nil, context: resolver.validationContext(for: project)) {
                throw APIError.invalidArgument(
                    "expiredLink '\(expiredLink.leadingScalars(200))' points into the Relink link domain \(domain), so the click would loop.")
            }
            guard project.allowlist.allows(uri, projectDomains: project.domains) else {
                throw APIError.invalidArgument("expiredLink '\(expiredLink.leadingScalars(200))' is not allowed by the project's allowlist.")
            }
        }
        return (expiresAt, maxClicks, expiredLink)
    }

    /// A link's name as stored: nil when absent or blank; a 400 for one too long or holding control characters.
    static func checkedName(_ name: String?) throws -> String? {
        guard let name, !name.allSatisfy(\.isWhitespace) else { return nil }
        if let problem = LinkName.problem(name) { throw APIError.invalidArgument(problem) }
        return name
    }

    static let sortedEncoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    /// Rules as stored: checked against the project's allowlist (a 400 naming every problem); nil when empty.
    func checked(_ rules: LinkRules?, project: Project) throws -> LinkRules? {
        guard let rules, !rules.isEmpty else { return nil }
        let problems = rules.problems(
            isAllowed: { project.allowlist.allows($0, projectDomains: project.domains) },
            linkDomains: resolver.validationContext(for: project).linkDomains)
        guard problems.isEmpty else {
            throw APIError.invalidArgument("The rules are not valid: " + problems.prefix(20).map(\.message).joined(separator: "; ") + ".")
        }
        return rules
    }

    /// Fetches the link's page now and stores its card (`relink links refresh-preview`).
    func refreshPreview(_ link: ShortLinkRecord) async throws -> ShortLinkRecord {
        guard let previews else { throw APIError.permissionDenied("This server fetches no previews.") }
        var link = link
        link.preview = try await previews.refreshOnDemand(link)
        return link
    }

    func managed(_ record: ShortLinkRecord) -> ManagedLink {
        var managed = ManagedLink(
            shortLink: record.shortLink, previewLink: record.shortLink + "?" + APIPath.debugQuery, longDynamicLink: record.longLink,
            project: record.projectId, suffixOption: record.suffixOption, disabled: record.disabled,
            expireTime: record.expiresAt.map(APITime.format), createTime: APITime.format(record.createdAt),
            updateTime: APITime.format(record.updatedAt), fetchPreview: previews?.fetches(record) ?? record.fetchPreview,
            preview: record.preview.map(ManagedLinkPreview.init), rules: record.rules, maxClicks: record.maxClicks,
            expiredLink: record.expiredLink, name: record.name, archived: record.archived)
        let warnings = countryWarnings(record.rules)
        managed.warning = warnings.isEmpty ? nil : warnings.map(APIWarning.init)
        return managed
    }
}
