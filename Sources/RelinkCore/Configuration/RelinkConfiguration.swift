/// The configuration of a Relink service, as routes.json describes it: its projects.
public struct RelinkConfiguration: Hashable, Sendable {
    public var projects: [Project]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(projects: [Project]) {
        self.projects = projects
    }

    /// Every link domain of every project.
    public var allDomains: [DomainURIPrefix] { projects.flatMap(\.domains) }

    /// The project with this id.
    /// - Parameter id: a project id from routes.json.
    /// - Returns: the project, or nil when there is none.
    public func project(id: String) -> Project? {
        projects.first { $0.id == id }
    }
}
