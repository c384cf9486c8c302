/// Where the console is served.
public enum ConsoleEndpoint: Sendable, Equatable {
    /// Under /console on the main port (the default).
    case mainPort
    /// Under /console on a listener of its own (`--console-port`, bound to `--console-host`), and not on the main
    /// port; port 0 picks a free port.
    case port(host: String, port: Int)
    /// Not served (`--no-console`).
    case disabled

    var servesOnMainPort: Bool { self == .mainPort }
}
