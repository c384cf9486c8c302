/// One thing wrong with a configuration: where (a JSON path such as `projects[0].ios[1].teamId`) and what.
public struct ConfigurationProblem: Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

extension ConfigurationProblem {
    /// What is wrong, without where: thrown by checks that do not know their JSON path.
    public struct Message: Error, Hashable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
        public var text: String

        public init(stringLiteral value: String) {
            self.text = value
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            self.text = String(stringInterpolation: stringInterpolation)
        }

        public var description: String { text }
    }
}
