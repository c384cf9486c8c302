import Foundation
import RelinkCore

/// A stored short link.
public struct ShortLinkRecord: Sendable, Equatable {
    public var id: Int64
    public var projectId: String
    /// The domain URI prefix it lives under, canonical (`https://go.pictlink.com`).
    public var domain: String
    public var code: String
    /// The canonical long link: what the short link stands for.
    public var longLink: String
    public var parameters: LinkParameters
    public var suffixOption: SuffixOption
    /// Project, suffix option and canonical long link: the same request mints the same link.
    public var idempotencyKey: String?
    public var disabled: Bool
    public var expiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date
    /// Archived in Firebase's console before it was imported: hidden there, still served (as FDL did).
    public var archived: Bool
    /// Its name in Firebase's console, when imported.
    public var name: String?
    /// Its crawler card is filled from its destination page (also when its project fetches every link's).
    public var fetchPreview: Bool
    /// What its destination page said of itself when last fetched.
    public var preview: PagePreview?
    /// Its rules and variants (checked before they are stored); nil for none.
    public var rules: LinkRules?
    /// After this many human clicks the link is over, as if expired.
    public var maxClicks: Int?
    /// Where clicks go once the link is disabled, expired or over its limit (instead of 410 Gone).
    public var expiredLink: String?

    public init(
        id: Int64, projectId: String, domain: String, code: String, longLink: String, parameters: LinkParameters,
        suffixOption: SuffixOption, idempotencyKey: String?, disabled: Bool = false, expiresAt: Date? = nil,
        createdAt: Date, updatedAt: Date, archived: Bool = false, name: String? = nil, fetchPreview: Bool = false,
        preview: PagePreview? = nil, rules: LinkRules? = nil, maxClicks: Int? = nil, expiredLink: String? = nil
    ) {
        self.maxClicks = maxClicks
        self.expiredLink = expiredLink
        self.id = id
        self.projectId = projectId
        self.domain = domain
        self.code = code
        self.longLink = longLink
        self.parameters = parameters
        self.suffixOption = suffixOption
        self.idempotencyKey = idempotencyKey
        self.disabled = disabled
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.archived = archived
        self.name = name
        self.fetchPreview = fetchPreview
        self.preview = preview
        self.rules = rules
    }

    /// `https://go.pictlink.com/Ab3x`.
    public var shortLink: String { "\(domain)/\(code)" }

    /// Whether a click at `now` may follow the link.
    public func isActive(at now: Date) -> Bool {
        !disabled && (expiresAt.map { now < $0 } ?? true)
    }
}

/// A short link to insert: everything but what the store assigns.
public struct ShortLinkDraft: Sendable, Equatable {
    public var projectId: String
    public var domain: String
    public var code: String
    public var longLink: String
    public var parameters: LinkParameters
    public var suffixOption: SuffixOption
    public var idempotencyKey: String?
    public var createdAt: Date
    public var archived: Bool
    public var name: String?
    public var fetchPreview: Bool
    public var rules: LinkRules?
    public var expiresAt: Date?
    public var maxClicks: Int?
    public var expiredLink: String?

    public init(
        projectId: String, domain: String, code: String, longLink: String, parameters: LinkParameters,
        suffixOption: SuffixOption, idempotencyKey: String?, createdAt: Date, archived: Bool = false, name: String? = nil,
        fetchPreview: Bool = false, rules: LinkRules? = nil, expiresAt: Date? = nil, maxClicks: Int? = nil, expiredLink: String? = nil
    ) {
        self.expiresAt = expiresAt
        self.maxClicks = maxClicks
        self.expiredLink = expiredLink
        self.projectId = projectId
        self.domain = domain
        self.code = code
        self.longLink = longLink
        self.parameters = parameters
        self.suffixOption = suffixOption
        self.idempotencyKey = idempotencyKey
        self.createdAt = createdAt
        self.archived = archived
        self.name = name
        self.fetchPreview = fetchPreview
        self.rules = rules
    }

    /// The record the store makes of it with `id`: dates as the database gives them back.
    public func record(id: Int64) -> ShortLinkRecord {
        ShortLinkRecord(
            id: id, projectId: projectId, domain: domain, code: code, longLink: longLink, parameters: parameters,
            suffixOption: suffixOption, idempotencyKey: idempotencyKey, expiresAt: expiresAt.map(StoreCoding.stored),
            createdAt: StoreCoding.stored(createdAt),
            updatedAt: StoreCoding.stored(createdAt), archived: archived, name: name, fetchPreview: fetchPreview,
            rules: rules, maxClicks: maxClicks, expiredLink: expiredLink)
    }
}
