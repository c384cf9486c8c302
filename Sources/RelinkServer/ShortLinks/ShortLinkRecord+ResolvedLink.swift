import RelinkCore
import RelinkStore

extension ShortLinkRecord {
    /// The link a click on this record resolves to, exactly as the server resolves it (for `relink verify`).
    public func resolvedLink(project: Project, prefix: DomainURIPrefix) -> ResolvedLink {
        ResolvedShortLink(record: self, project: project, prefix: prefix).link
    }
}
