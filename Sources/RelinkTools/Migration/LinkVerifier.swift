import Foundation
import RelinkCore
import RelinkServer
import RelinkStore

/// `relink verify`: for every short link of a project, where FDL sent each kind of client (`FirebaseRules`) next to
/// what Relink does: its planner, or a running deployment asked over HTTP.
public struct LinkVerifier: Sendable {
    public struct Difference: Sendable, Equatable {
        public var shortLink: String
        public var client: FirebaseRules.Client
        public var firebase: FirebaseRules.Outcome
        public var relink: FirebaseRules.Outcome
        /// The project settings without which Relink would answer as FDL did (one, or the fewest that together do);
        /// empty when none do (the link itself, or Relink's own behaviour).
        public var causes: [Cause]
    }

    /// A project setting of routes.json that makes Relink answer otherwise than FDL did, on purpose.
    public enum Cause: String, Sendable, CaseIterable {
        case desktopFallbackLink = "defaults.desktopFallbackLink"
        case socialDefaults = "defaults.socialTitle, socialDescription, socialImageLink"
        case forcedRedirect = "defaults.forcedRedirect"
        case rules = "rules"

        /// What the setting does that FDL did not, and what to do for FDL's behaviour.
        public var explanation: String {
            switch self {
            case .desktopFallbackLink:
                "desktops go to it where FDL sent them to the link (or its ofl); leave it out for FDL's behaviour"
            case .socialDefaults:
                "link-preview crawlers get the project's card where FDL showed the link's own (st, sd, si) or none; leave them out for FDL's behaviour"
            case .forcedRedirect:
                "iPhones and iPads skip the preview page as efr=1 would; leave it out (or false) for FDL's behaviour"
            case .rules: "the project's rules or variants send some clients elsewhere; FDL had none"
            }
        }

        /// `project` without the setting.
        func removed(from project: Project) -> Project {
            var project = project
            switch self {
            case .desktopFallbackLink: project.defaults.desktopFallbackLink = nil
            case .socialDefaults:
                project.defaults.socialTitle = nil
                project.defaults.socialDescription = nil
                project.defaults.socialImageLink = nil
            case .forcedRedirect: project.defaults.forcedRedirect = false
            case .rules: project.rules = LinkRules()
            }
            return project
        }
    }

    public struct Report: Sendable, Equatable {
        public var links = 0
        public var checks = 0
        public var differenceCount = 0
        /// The first `maximumListed` differences; `differenceCount` counts them all.
        public var differences: [Difference] = []
        /// Every difference counted by its causes (none: the link itself or Relink's own behaviour).
        public var causes: [[Cause]: Int] = [:]

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
        let link = record.resolvedLink(project: project, prefix: prefix)
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
    ///   - pageSize: links read from the store at a time.
    ///   - concurrency: how many answers are awaited at once (for `answer`; the planner answers at once).
    ///   - answer: how Relink answers; nil for the planner.
    /// - Returns: the counts and the first differences.
    /// - Throws: the store's errors and `answer`'s (the first one stops the verification).
    public func verify(projectId: String, pageSize: Int = 1000, concurrency: Int = 1, answer: Answer? = nil) async throws -> Report {
        guard let project = configuration.project(id: projectId) else { return Report() }
        var report = Report()
        var before: Int64?
        while true {
            let page = try await store.links(projectId: projectId, beforeId: before, limit: pageSize)
            let checks = page.flatMap { record in FirebaseRules.Client.allCases.map { (record, $0) } }
            let answers: [FirebaseRules.Outcome]
            if let answer {
                answers = try await Self.answers(checks, concurrency: concurrency, answer: answer)
            } else {
                answers = checks.map { Self.planned($0, project: project, client: $1) }
            }
            report.links += page.count
            for ((record, client), relink) in zip(checks, answers) {
                report.checks += 1
                let firebase = FirebaseRules.outcome(record.parameters, client: client)
                guard firebase.normalized != relink.normalized else { continue }
                report.differenceCount += 1
                let causes = Self.causes(record, project: project, client: client, firebase: firebase)
                report.causes[causes, default: 0] += 1
                if report.differences.count < Report.maximumListed {
                    report.differences.append(
                        Difference(shortLink: record.shortLink, client: client, firebase: firebase, relink: relink, causes: causes))
                }
            }
            guard page.count == pageSize, let last = page.last else { break }
            before = last.id
        }
        return report
    }

    /// The fewest project settings without which the planner answers as FDL did: one alone, else two, else all;
    /// empty when even without all of them it does not (a crawler on a link without a card needs both the social
    /// defaults and the desktop fallback gone, say).
    static func causes(_ record: ShortLinkRecord, project: Project, client: FirebaseRules.Client, firebase: FirebaseRules.Outcome) -> [Cause] {
        let all = Cause.allCases
        var candidates = all.map { [$0] }
        for (index, first) in all.enumerated() { candidates += all[(index + 1)...].map { [first, $0] } }
        candidates.append(all)
        return candidates.first { causes in
            let stripped = causes.reduce(project) { project, cause in cause.removed(from: project) }
            return planned(record, project: stripped, client: client).normalized == firebase.normalized
        } ?? []
    }

    /// `answer` for each check, in order, with at most `concurrency` awaited at once.
    static func answers(
        _ checks: [(ShortLinkRecord, FirebaseRules.Client)], concurrency: Int, answer: @escaping Answer
    ) async throws -> [FirebaseRules.Outcome] {
        try await withThrowingTaskGroup(of: (Int, FirebaseRules.Outcome).self) { group in
            var results = [FirebaseRules.Outcome?](repeating: nil, count: checks.count)
            var next = 0
            func start() {
                let index = next
                let (record, client) = checks[index]
                group.addTask { (index, try await answer(record, client)) }
                next += 1
            }
            // The first alone: a deployment that refuses the key, or counts the checks, is found after one request.
            if !checks.isEmpty { start() }
            var done = 0
            while let (index, outcome) = try await group.next() {
                results[index] = outcome
                done += 1
                while next < checks.count, next - done < max(concurrency, 1) { start() }
            }
            return results.map { $0! }
        }
    }
}
