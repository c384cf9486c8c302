import Foundation

/// A short link as the management API shows it (beyond FDL).
public struct ManagedLink: Codable, Sendable, Equatable {
    public var shortLink: String
    public var previewLink: String
    public var longDynamicLink: String
    public var project: String
    public var suffixOption: SuffixOption
    public var disabled: Bool
    /// RFC 3339; the link answers 410 after it.
    public var expireTime: String?
    public var createTime: String
    public var updateTime: String
    /// Whether its crawler card is filled from its destination page (its own setting or its project's).
    public var fetchPreview: Bool?
    /// What the destination page said when last fetched.
    public var preview: ManagedLinkPreview?
    /// Its rules and variants.
    public var rules: LinkRules?
    /// The link is over after this many human clicks.
    public var maxClicks: Int?
    /// Where clicks go once the link is over.
    public var expiredLink: String?
    /// Its name: from Firebase's console when imported, or given when it was created.
    public var name: String?
    /// Archived in Firebase's console before it was imported: still served. The server always says (true or false).
    public var archived: Bool?
    /// What is wrong with the link on this server, such as country rules without a country source; absent when nothing.
    public var warning: [APIWarning]?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        shortLink: String, previewLink: String, longDynamicLink: String, project: String, suffixOption: SuffixOption,
        disabled: Bool, expireTime: String?, createTime: String, updateTime: String, fetchPreview: Bool? = nil,
        preview: ManagedLinkPreview? = nil, rules: LinkRules? = nil, maxClicks: Int? = nil, expiredLink: String? = nil,
        name: String? = nil, archived: Bool? = nil
    ) {
        self.name = name
        self.archived = archived
        self.maxClicks = maxClicks
        self.expiredLink = expiredLink
        self.shortLink = shortLink
        self.previewLink = previewLink
        self.longDynamicLink = longDynamicLink
        self.project = project
        self.suffixOption = suffixOption
        self.disabled = disabled
        self.expireTime = expireTime
        self.createTime = createTime
        self.updateTime = updateTime
        self.fetchPreview = fetchPreview
        self.preview = preview
        self.rules = rules
    }
}

/// `GET /v1/links`: one page of the key's project's links, newest first.
public struct LinkListResponse: Codable, Sendable, Equatable {
    public var links: [ManagedLink]
    /// Pass as `pageToken` for the next page; absent on the last page.
    public var nextPageToken: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(links: [ManagedLink], nextPageToken: String?) {
        self.links = links
        self.nextPageToken = nextPageToken
    }
}

/// `PATCH /v1/links/{shortLink}`: every field is optional; what is present changes.
public struct UpdateLinkRequest: Codable, Sendable, Equatable {
    /// A new destination and parameters, as a long link on the short link's own domain.
    public var longDynamicLink: String?
    /// The same, as FDL's fields.
    public var dynamicLinkInfo: DynamicLinkInfo?
    public var disabled: Bool?
    /// RFC 3339, or `""` to remove the expiry.
    public var expireTime: String?
    /// Fill the crawler card from the destination page (fetched in the background), or stop.
    public var fetchPreview: Bool?
    /// New rules and variants; empty lists remove them.
    public var rules: LinkRules?
    /// A click limit; 0 removes it.
    public var maxClicks: Int?
    /// Where clicks go once the link is over; `""` removes it.
    public var expiredLink: String?
    /// A new name; `""` removes it.
    public var name: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        longDynamicLink: String? = nil, dynamicLinkInfo: DynamicLinkInfo? = nil, disabled: Bool? = nil, expireTime: String? = nil,
        fetchPreview: Bool? = nil, rules: LinkRules? = nil, maxClicks: Int? = nil, expiredLink: String? = nil, name: String? = nil
    ) {
        self.name = name
        self.rules = rules
        self.maxClicks = maxClicks
        self.expiredLink = expiredLink
        self.longDynamicLink = longDynamicLink
        self.dynamicLinkInfo = dynamicLinkInfo
        self.disabled = disabled
        self.expireTime = expireTime
        self.fetchPreview = fetchPreview
    }
}

/// A link's card as read from its destination page.
public struct ManagedLinkPreview: Codable, Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var imageLink: String?
    /// The page it was read from, after redirects.
    public var pageLink: String?
    /// RFC 3339: when the page was last fetched.
    public var fetchTime: String
    /// Why the last fetch gave nothing (the values are then the fetch's before it).
    public var failure: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(title: String?, description: String?, imageLink: String?, pageLink: String?, fetchTime: String, failure: String?) {
        self.title = title
        self.description = description
        self.imageLink = imageLink
        self.pageLink = pageLink
        self.fetchTime = fetchTime
        self.failure = failure
    }

    public init(_ preview: PagePreview) {
        self.init(
            title: preview.title, description: preview.description, imageLink: preview.imageURL, pageLink: preview.pageURL,
            fetchTime: APITime.format(preview.fetchedAt), failure: preview.failure)
    }
}
