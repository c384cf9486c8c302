/// What a link-preview crawler gets: Open Graph and Twitter card tags.
public struct SocialPreview: Sendable, Equatable {
    public var title: String?
    public var description: String?
    public var imageURL: String?
    /// `og:url` and the canonical link: the deep link.
    public var canonicalURL: String
}
