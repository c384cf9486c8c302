import Foundation
import RelinkCore
import RelinkStore

/// `relink verify`: for every short link of a project, where FDL sent each kind of client (`FirebaseRules`) next to
/// what Relink does: its planner, or a running deployment asked over HTTP.
public struct LinkVerifier: Sendable {
    public struct Difference: Sendable, Equatable {
        public var shortLink: String
        public var client: FirebaseRules.Client
        public var firebase: FirebaseRules.Outcome
        public var relink: FirebaseRules.Outcome
    }

    public struct Report: Sendable, Equatable {
        public var links = 0
        public var checks = 0
        public var differenceCount = 0
        /// The first `maximumListed` differences; `differenceCount` counts them all.
        public var differences: [Difference] = []

        public static let maximumListed = 1000
    }

    /// How Relink answers one link for one client.
    public typealias Answer = @Sendable (ShortLinkRecord, FirebaseRules.Client) async throws -> FirebaseRules.Outcome

    let configuration: RelinkConfiguration
    let store: any RelinkStore

    public init(configuration: RelinkConfiguration, store: any RelinkStore) {
        self.configuration = configuration
        self.store = store
    }

    /// What Relink's planner answers, as the server would for a click.
    public static func planned(_ record: ShortLinkRecord, project: Project, client: FirebaseRules.Client) -> FirebaseRules.Outcome {
        guard record.isActive(at: Date()) else { return .refused("the link is disabled or expired") }
        guard let prefix = try? DomainURIPrefix(record.domain) else { return .refused("'\(record.domain)' is not a domain URI prefix") }
        let link = ResolvedShortLink(record: record, project: project, prefix: prefix).link
        switch RedirectPlanner.plan(link, project: project, client: PlatformDetector.detect(userAgent: client.userAgent)) {
        case .redirect(let url, _, _): return .redirect(url)
        case .appPreview(let preview): return .preview(open: preview.openURL)
        case .socialPreview: return .socialCard
        case .rejected(let rejection): return .refused(rejection.description)
        case .debug: return .refused("the debug page")
        }
    }

    /// Compares every link of `projectId` (a page of `pageSize` at a time) for every client.
    /// - Parameters:
    ///   - projectId: the project.
    ///   - answer: how Relink answers; nil for the planner.
    /// - Returns: the counts and the first differences.
    /// - Throws: the store's errors and `answer`'s.
    public func verify(projectId: String, pageSize: Int = 1000, answer: Answer? = nil) async throws -> Report {
        guard let project = configuration.project(id: projectId) else { return Report() }
        var report = Report()
        var before: Int64?
        while true {
            let page = try await store.links(projectId: projectId, beforeId: before, limit: pageSize)
            for record in page {
                report.links += 1
                for client in FirebaseRules.Client.allCases {
                    report.checks += 1
                    let firebase = FirebaseRules.outcome(record.parameters, client: client)
                    let relink = try await answer?(record, client) ?? Self.planned(record, project: project, client: client)
                    guard firebase.normalized != relink.normalized else { continue }
                    report.differenceCount += 1
                    if report.differences.count < Report.maximumListed {
                        report.differences.append(Difference(shortLink: record.shortLink, client: client, firebase: firebase, relink: relink))
                    }
                }
            }
            guard page.count == pageSize, let last = page.last else { break }
            before = last.id
        }
        return report
    }
}
