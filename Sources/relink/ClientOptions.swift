import ArgumentParser
import Foundation
import RelinkClient

/// How commands reach a running server: `--server` / $RELINK_SERVER, `--key` / $RELINK_API_KEY.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Relink server (default: $RELINK_SERVER, else http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "The API key (default: $RELINK_API_KEY).")
    var key: String?

    func client() throws(CLIError) -> RelinkClient {
        let environment = ProcessInfo.processInfo.environment
        let text = server ?? environment["RELINK_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil
        else {
            throw CLIError.usage("--server must be an http(s) URL such as http://127.0.0.1:8080, got '\(text)'")
        }
        guard let apiKey = key ?? environment["RELINK_API_KEY"], !apiKey.isEmpty else {
            throw CLIError.usage("an API key is needed: pass --key or set RELINK_API_KEY (create one with `relink keys create`)")
        }
        return RelinkClient(server: url, apiKey: apiKey)
    }
}

extension RelinkClientError {
    var cliError: CLIError { CLIError(message: description) }
}
