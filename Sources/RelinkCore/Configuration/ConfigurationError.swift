/// A configuration that cannot be used, with every problem found (not just the first).
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public var problems: [ConfigurationProblem]

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(problems: [ConfigurationProblem]) {
        self.problems = problems
    }

    /// One line per problem.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
