/// The configuration of a Relink service, as routes.json describes it: its projects.
public struct RelinkConfiguration: Hashable, Sendable {
    public var projects: [Project]

    public init(projects: [Project]) {
        self.projects = projects
    }

    /// Every link domain of every project.
    public var allDomains: [DomainURIPrefix] { projects.flatMap(\.domains) }

    public func project(id: String) -> Project? {
        projects.first { $0.id == id }
    }
}
