import ArgumentParser
import Foundation
import RelinkClient

/// How commands reach a running server: `--server` / $RELINK_SERVER, `--key` / $RELINK_API_KEY.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Relink server (default: $RELINK_SERVER, else http://127.0.0.1:8080).")
    var server: String?

    @Option(help: "The API key (default: $RELINK_API_KEY); spaces and line breaks around it are ignored.")
    var key: String?

    func client() throws(CLIError) -> RelinkClient {
        let environment = ProcessInfo.processInfo.environment
        let text = server ?? environment["RELINK_SERVER"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()), url.host != nil
        else {
            throw CLIError.usage("--server must be an http(s) URL such as http://127.0.0.1:8080, got '\(text)'")
        }
        guard let apiKey = try Self.apiKey(key, environment: environment) else {
            throw CLIError.usage("an API key is needed: pass --key or set RELINK_API_KEY (create one with `relink keys create`)")
        }
        return RelinkClient(server: url, apiKey: apiKey)
    }

    /// The key from `--key`, else $RELINK_API_KEY, without the spaces and line breaks around it that files, `$(…)`
    /// and secret stores leave (a header cannot carry a line break, so the key would be dropped from the request);
    /// nil when neither gives one.
    /// - Throws: a usage error for a key with a space or control character inside.
    static func apiKey(_ flag: String?, environment: [String: String]) throws(CLIError) -> String? {
        let source = flag != nil ? "--key" : "RELINK_API_KEY"
        guard let text = flag ?? environment["RELINK_API_KEY"] else { return nil }
        // By scalar: a CRLF is one Character, and a Character never equals "\n" or "\r" alone.
        let isSpace: (Unicode.Scalar) -> Bool = { [" ", "\t", "\n", "\r", "\u{0B}", "\u{0C}"].contains($0) }
        let scalars = text.unicodeScalars
        guard let start = scalars.firstIndex(where: { !isSpace($0) }), let end = scalars.lastIndex(where: { !isSpace($0) }) else {
            return nil
        }
        let key = String(scalars[start...end])
        guard key.unicodeScalars.allSatisfy({ $0.value > 0x20 && !TerminalText.isUnsafe($0) }) else {
            throw CLIError.usage("the API key in \(source) has a space or control character inside; an API key has none")
        }
        return key
    }
}

extension RelinkClientError {
    /// The failure as one line: the server's message may hold anything, line breaks too.
    var cliError: CLIError { CLIError(message: TerminalText.escaped(description)) }
}
