import Crypto
import Foundation

/// How a pending click keeps the link it was for. A short link or short long link sits in the click's row; a
/// longer one (a long link may run to 7,168 characters) is kept once in `clicked_links` under its SHA-256, and
/// each click holds only that digest: a burst of clicks on one long link costs its text once, not once a click.
enum ClickedLink {
    /// Links up to this many UTF-8 bytes stay in the click's row.
    static let inlineLimit = 200

    /// What a click's row holds: the link itself, or "" and the digest of a link kept in `clicked_links`.
    static func stored(_ link: String) -> (inline: String, digest: String?) {
        guard link.utf8.count > inlineLimit else { return (link, nil) }
        return ("", digest(link))
    }

    static func digest(_ link: String) -> String {
        SHA256.hash(data: Data(link.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// The distinct long links of `clicks`, by digest.
    static func distinctLongLinks(of clicks: some Sequence<PendingClick>) -> [String: String] {
        var links: [String: String] = [:]
        for click in clicks where click.requestedLink.utf8.count > inlineLimit {
            links[digest(click.requestedLink)] = click.requestedLink
        }
        return links
    }

    /// How long an unreferenced link is kept after its last click, so a click being written as it is purged still
    /// finds it.
    static let graceAfterLastClick: TimeInterval = 3600

    /// The columns of a pending click and its link, for `SELECT`.
    static let selectClicks = "SELECT p.*, l.link AS kept_link FROM pending_clicks p LEFT JOIN clicked_links l ON l.digest = p.link_digest"
}
