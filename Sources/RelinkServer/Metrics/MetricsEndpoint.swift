/// Where `/metrics` is served. Never to the world by default: metrics tell an attacker how the service copes.
public enum MetricsEndpoint: Sendable, Equatable {
    /// Not served (the default).
    case disabled
    /// On its own listener (`--metrics-port`, bound to `--metrics-host`, loopback by default), with an optional
    /// bearer token; port 0 picks a free port.
    case port(host: String, port: Int, token: String?)
    /// On the main port, to requests with `Authorization: Bearer <token>` (`--metrics-token` alone).
    case token(String)

    var servesOnMainPort: Bool {
        if case .token = self { return true }
        return false
    }

    var token: String? {
        switch self {
        case .disabled: nil
        case .port(_, _, let token): token
        case .token(let token): token
        }
    }
}
