/// Something about a link that works but is probably not what its author meant. Warnings never block a link.
public struct LinkWarning: Hashable, Sendable, Codable, CustomStringConvertible {
    public var code: LinkWarningCode
    /// The query key the warning is about (`isi`, or an unrecognised `foo`).
    public var parameter: String
    /// A sentence saying what is wrong and what happens because of it.
    public var message: String

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(_ code: LinkWarningCode, parameter: String, message: String) {
        self.code = code
        self.parameter = parameter
        self.message = message
    }

    public var description: String { "\(code.rawValue) (\(parameter)): \(message)" }
}
