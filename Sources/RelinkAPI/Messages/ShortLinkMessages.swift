/// The bodies of `POST /v1/shortLinks`, as FDL clients send and expect them.
public struct CreateShortLinkRequest: Codable, Sendable, Equatable {
    public struct Suffix: Codable, Sendable, Equatable {
        /// `UNGUESSABLE`, `SHORT`, `CUSTOM`; absent or `OPTION_UNSPECIFIED` mean `UNGUESSABLE`.
        public var option: String?
        /// Relink's extension, with `CUSTOM`.
        public var customSuffix: String?

        /// Creates the value from its parts: each parameter sets the property of the same name.
        public init(option: String? = nil, customSuffix: String? = nil) {
            self.option = option
            self.customSuffix = customSuffix
        }
    }

    public var longDynamicLink: String?
    public var dynamicLinkInfo: DynamicLinkInfo?
    public var suffix: Suffix?
    public var sdkVersion: String?
    /// Relink's extension: fill the link's crawler card from its destination page (fetched in the background).
    public var fetchPreview: Bool?
    /// Relink's extension: the link's rules and A/B variants (docs/rules.md).
    public var rules: LinkRules?
    /// Relink's extension: RFC 3339; the link is over after it.
    public var expireTime: String?
    /// Relink's extension: the link is over after this many human clicks.
    public var maxClicks: Int?
    /// Relink's extension: where clicks go once the link is over (else 410 Gone).
    public var expiredLink: String?
    /// Relink's extension: the link's name, as the console lists it (an imported link keeps its Firebase name).
    public var name: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        longDynamicLink: String? = nil, dynamicLinkInfo: DynamicLinkInfo? = nil, suffix: Suffix? = nil, fetchPreview: Bool? = nil,
        rules: LinkRules? = nil, expireTime: String? = nil, maxClicks: Int? = nil, expiredLink: String? = nil, name: String? = nil
    ) {
        self.name = name
        self.expireTime = expireTime
        self.maxClicks = maxClicks
        self.expiredLink = expiredLink
        self.longDynamicLink = longDynamicLink
        self.dynamicLinkInfo = dynamicLinkInfo
        self.suffix = suffix
        self.fetchPreview = fetchPreview
        self.rules = rules
    }
}

/// A warning as FDL's API reports it.
public struct APIWarning: Codable, Sendable, Equatable {
    public var warningCode: String
    public var warningMessage: String
    public var warningDocumentLink: String?

    /// FDL's form of a validation warning.
    /// - Parameter warning: the warning.
    public init(_ warning: LinkWarning) {
        warningCode = warning.code.rawValue
        warningMessage = warning.message
        // Relink's own about rules has no page of Firebase's to point at.
        warningDocumentLink =
            warning.code == .countryRulesWithoutCountrySource ? nil : "https://firebase.google.com/docs/dynamic-links/create-manually"
    }
}

public struct CreateShortLinkResponse: Codable, Sendable, Equatable {
    public var shortLink: String
    public var previewLink: String
    public var warning: [APIWarning]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(shortLink: String, previewLink: String, warning: [APIWarning]) {
        self.shortLink = shortLink
        self.previewLink = previewLink
        self.warning = warning
    }
}

/// Google's error body: `{"error": {"code": 400, "message": "…", "status": "INVALID_ARGUMENT"}}`.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public struct Detail: Codable, Sendable, Equatable {
        public var code: Int
        public var message: String
        public var status: String
    }

    public var error: Detail

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(code: Int, message: String, status: String) {
        error = Detail(code: code, message: message, status: status)
    }
}
