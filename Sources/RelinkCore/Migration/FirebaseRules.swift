/// Where Firebase Dynamic Links sent each kind of client for a link's parameters (as Firebase documented each
/// parameter: https://firebase.google.com/docs/dynamic-links/create-manually), written
/// apart from `RedirectPlanner` on purpose: `relink verify` compares the two, so a difference in the planner, in a
/// project's defaults or in an imported link shows up instead of agreeing with itself.
public enum FirebaseRules {
    /// The clients `relink verify` sends: a User-Agent each, as a browser on that device sends it.
    public enum Client: String, CaseIterable, Sendable {
        case iPhone, iPad, android, desktop, crawler

        public var userAgent: String {
            switch self {
            case .iPhone:
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
            case .iPad:
                "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"
            case .android:
                "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
            case .desktop:
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
            case .crawler: "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
            }
        }
    }

    /// What a click gets.
    public enum Outcome: Hashable, Sendable, CustomStringConvertible {
        /// A 302 to the URL.
        case redirect(String)
        /// The iOS preview page, whose Open button leads to the URL.
        case preview(open: String)
        /// The link-preview card (Open Graph tags) for a crawler.
        case socialCard
        /// Not served (an invalid link).
        case refused(String)

        public var description: String {
            switch self {
            case .redirect(let url): "302 \(url)"
            case .preview(let open): "preview page, Open → \(open)"
            case .socialCard: "link-preview card"
            case .refused(let reason): "refused: \(reason)"
            }
        }

        /// The outcome with its URL's path decoded and query items sorted and decoded, and the Play referrer's click
        /// id left out: two URLs that differ only in encoding or order compare equal. Every refusal is one, whatever
        /// its wording (FDL's, the planner's and a deployment's pages say it differently).
        public var normalized: Outcome {
            switch self {
            case .redirect(let url): .redirect(FirebaseRules.normalized(url))
            case .preview(let open): .preview(open: FirebaseRules.normalized(open))
            case .socialCard: self
            case .refused: .refused("")
            }
        }
    }

    /// FDL's outcome for `parameters` on `client`.
    public static func outcome(_ parameters: LinkParameters, client: Client) -> Outcome {
        guard let link = parameters.link else { return .refused("no link") }
        let desktop = Outcome.redirect(parameters.ofl ?? link)
        switch client {
        case .crawler:
            return parameters.st != nil || parameters.sd != nil || parameters.si != nil ? .socialCard : desktop
        case .desktop:
            return desktop
        case .android:
            guard let apn = parameters.apn else { return .redirect(link) }
            return .redirect(parameters.afl ?? "https://play.google.com/store/apps/details?id=\(apn)")
        case .iPhone, .iPad:
            let iPad = client == .iPad
            guard (iPad ? (parameters.ipbi ?? parameters.ibi) : parameters.ibi) != nil else { return .redirect(link) }
            var destination = parameters.ifl
            if iPad, let ipfl = parameters.ipfl { destination = ipfl }
            if destination == nil, let isi = parameters.isi, !isi.isEmpty, isi.allSatisfy(\.isASCIIDigitCharacter) {
                let analytics = [("at", parameters.at), ("ct", parameters.ct), ("mt", parameters.mt), ("pt", parameters.pt)]
                    .compactMap { name, value in value.map { "\(name)=\(PercentEncoding.encodeComponent($0))" } }
                destination = "https://apps.apple.com/app/id\(isi)" + (analytics.isEmpty ? "" : "?" + analytics.joined(separator: "&"))
            }
            let target = destination ?? link
            return parameters.efr == "1" ? .redirect(target) : .preview(open: target)
        }
    }

    /// `url` with its query's pairs decoded and sorted, without the Play referrer (it carries each click's id and
    /// Relink's campaign fields, which FDL put elsewhere).
    static func normalized(_ url: String) -> String {
        guard let mark = url.firstIndex(of: "?") else { return PercentEncoding.decode(Substring(url), plusAsSpace: false) ?? url }
        let pairs = url[url.index(after: mark)...].split(separator: "&").compactMap { pair -> String? in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = PercentEncoding.decode(parts[0]) ?? String(parts[0])
            if url.hasPrefix("https://play.google.com/"), name == "referrer" { return nil }
            return name + "=" + (parts.count > 1 ? (PercentEncoding.decode(parts[1]) ?? String(parts[1])) : "")
        }
        let base = url[..<mark]
        return (PercentEncoding.decode(base, plusAsSpace: false) ?? String(base)) + (pairs.isEmpty ? "" : "?" + pairs.sorted().joined(separator: "&"))
    }
}
