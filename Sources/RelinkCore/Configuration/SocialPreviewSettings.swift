/// A project's `socialPreview`: whether its short links' crawler cards are filled from the destination page.
public struct SocialPreviewSettings: Hashable, Sendable {
    /// Fetch every short link's page (a link can also ask for it alone, `fetchPreview` when minted).
    public var fetch: Bool
    /// How old a stored preview may get before it is fetched again.
    public var refreshHours: Int

    public init(fetch: Bool = false, refreshHours: Int = 24) {
        self.fetch = fetch
        self.refreshHours = refreshHours
    }

    public static let `default` = SocialPreviewSettings()
}
