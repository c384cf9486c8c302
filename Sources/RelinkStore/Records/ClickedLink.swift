import Crypto
import Foundation

/// How a pending click keeps the link it was for. A short link or short long link sits in the click's row; a
/// longer one (a long link may run to 7,168 characters) is kept once per project in `clicked_links` under its
/// digest, and each click holds only that digest: a burst of clicks on one long link costs its text once, not
/// once a click. A kept link is dropped once it has not been clicked for its project's token window (and an hour):
/// every click naming it has expired by then, so no index from clicks to links is needed.
enum ClickedLink {
    /// Links up to this many UTF-8 bytes stay in the click's row.
    static let inlineLimit = PendingClick.inlineLinkLength

    /// What a click's row holds: the link itself, or "" and the digest of a link kept in `clicked_links`.
    static func stored(_ link: String) -> (inline: String, digest: String?) {
        guard link.utf8.count > inlineLimit else { return (link, nil) }
        return ("", digest(link))
    }

    /// The first 128 bits of the link's SHA-256, in hex: collisions would take about 2^64 distinct links.
    static func digest(_ link: String) -> String {
        SHA256.hash(data: Data(link.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    struct Key: Hashable {
        var projectId: String
        var digest: String
    }

    /// The distinct long links of `clicks`, by project and digest.
    static func distinctLongLinks(of clicks: some Sequence<PendingClick>) -> [Key: String] {
        var links: [Key: String] = [:]
        for click in clicks where click.requestedLink.utf8.count > inlineLimit {
            links[Key(projectId: click.projectId, digest: digest(click.requestedLink))] = click.requestedLink
        }
        return links
    }

    /// How long past its project's token window a link is kept after its last click, so a click written late (a
    /// retried flush) still finds it.
    static let graceAfterLastClick: TimeInterval = 3600

    /// What `PendingClick(row:)` reads, in this order: the click's columns, then its kept link's text.
    static let clickColumns = [
        "id", "project_id", "platform", "link_id", "app_id", "requested_link", "created_at", "address_hash", "network_hash", "ip_version",
        "os_version", "device", "languages", "screen", "time_zone", "claimed_at", "confidence", "variant", "kept_link",
    ]

    /// The columns of a pending click and its link, for `SELECT`, in the order of `clickColumns`.
    static let selectClicks = """
        SELECT \(clickColumns.dropLast().map { "p." + $0 }.joined(separator: ", ")), l.link AS kept_link FROM pending_clicks p
        LEFT JOIN clicked_links l ON l.project_id = p.project_id AND l.digest = p.link_digest
        """
}
