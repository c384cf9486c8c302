/// The `d=1` page's content: what the link is, and where each kind of click would go.
public struct DebugReport: Sendable, Equatable {
    public struct Outcome: Sendable, Equatable {
        /// Who clicks: "iPhone, app installed", "Android", …
        public var scenario: String
        /// What happens, in a few words: "Opens the app", "Preview page", "Redirect".
        public var action: String
        /// Where the click ends up, when that is a URL.
        public var destination: String?
        /// Why, in a sentence.
        public var reason: String
    }

    public var linkURL: String
    public var kind: ResolvedLink.Kind
    public var parameters: LinkParameters
    public var warnings: [LinkWarning]
    public var errors: [LinkError]
    public var violations: [AllowlistViolation]
    public var outcomes: [Outcome]
    /// How the link's rules and variants decided for this request (the country, language and platform it came with).
    public var ruleNotes: [String] = []
    /// Why the link does not redirect at all now (disabled, expired, over its click limit), and what clicks get.
    public var stateNotes: [String] = []
}
