/// Why a link answers 400 instead of redirecting.
public struct LinkRejection: Sendable, Equatable, CustomStringConvertible {
    public var errors: [LinkError]
    public var violations: [AllowlistViolation]

    public var description: String {
        (errors.map(\.message) + violations.map(\.description)).joined(separator: " ")
    }
}
