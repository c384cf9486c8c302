import Foundation
import RelinkAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `Relink`'s requests: JSON to the configured server only, never following a redirect (the claim's body would go
/// with it), each within the timeout, 429 and 503 retried after `Retry-After` while the retry budget lasts. Every
/// failure becomes a `RelinkError`.
final class RelinkTransport: Sendable {
    /// Attempts of one call, the first included.
    static let maxAttempts = 3
    /// An answer larger than this is not a Relink answer.
    static let maxAnswerBytes = 1 << 20

    let server: URL
    let options: Relink.Options

    init(server: URL, options: Relink.Options) {
        self.server = server
        self.options = options
    }

    /// Each request's session: no cookies, no cache (`RelinkExchange` bounds the whole request by the timeout).
    private var configuration: URLSessionConfiguration {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = options.timeout
        configuration.timeoutIntervalForResource = options.timeout
        configuration.httpCookieAcceptPolicy = .never
        configuration.urlCache = nil
        return configuration
    }

    /// `POST /v1/<name>` with `body`, the answer decoded.
    func post<Body: Encodable, Answer: Decodable>(_ name: String, _ body: Body, answer: Answer.Type) async -> Result<Answer, RelinkError> {
        let base = server.absoluteString.hasSuffix("/") ? String(server.absoluteString.dropLast()) : server.absoluteString
        guard let url = URL(string: base + APIPath.absolute(name)) else {
            return .failure(RelinkError(kind: .invalidInput, message: "cannot make a URL from '\(server.absoluteString)'"))
        }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        do {
            try request.setJSONBody(body)
        } catch {
            return .failure(RelinkError(kind: .invalidInput, message: "cannot encode the request: \(error)"))
        }
        var waited: TimeInterval = 0
        var attempt = 1
        while true {
            let (status, retryAfter, data): (Int, String?, Data)
            switch await exchange(request) {
            case .failure(let error): return .failure(error)
            case .success(let answer): (status, retryAfter, data) = answer
            }
            if (200..<300).contains(status) {
                if let problem = JSONShape.problem(data) ?? JSONNumberRange.problem(data) {
                    return .failure(RelinkError(kind: .malformed, status: status, message: "the answer from \(base) is not Relink's: \(problem)"))
                }
                guard let decoded = try? JSONDecoder().decode(Answer.self, from: data) else {
                    return .failure(RelinkError(kind: .malformed, status: status, message: "the answer from \(base) is not Relink's JSON"))
                }
                return .success(decoded)
            }
            // A body too deep, with a key twice or a number past a double gives nothing: the status says what happened.
            let readable = JSONShape.problem(data) == nil && JSONNumberRange.problem(data) == nil
            let apiError = readable ? try? JSONDecoder().decode(APIErrorBody.self, from: data) : nil
            let retryAfterSeconds = retryAfter.flatMap(Self.seconds)
            if status == 429 || status == 503 {
                let wait = TimeInterval(retryAfterSeconds ?? 1)
                if attempt < Self.maxAttempts, waited + wait <= options.retryBudget, !Task.isCancelled {
                    try? await Task.sleep(nanoseconds: UInt64(wait * 1_000_000_000))
                    waited += wait
                    attempt += 1
                    continue
                }
            }
            let kind: RelinkError.Kind = status == 429 ? .rateLimited : status == 503 ? .unavailable : .http
            return .failure(
                RelinkError(
                    kind: kind, status: status, apiStatus: apiError?.error.status,
                    message: apiError?.error.message ?? "HTTP \(status) from \(base)", retryAfterSeconds: retryAfterSeconds))
        }
    }

    /// One request: its status, `Retry-After` and body, or why there is none.
    private func exchange(_ request: URLRequest) async -> RelinkExchange.Outcome {
        await RelinkExchange.run(
            request, configuration: configuration, server: server.absoluteString, timeout: options.timeout, maxBytes: Self.maxAnswerBytes)
    }

    /// `Retry-After` in seconds: delay-seconds or an HTTP date (`RetryAfter`); ten digits or more are
    /// `RetryAfter.maxSeconds`, longer than any budget, so the call fails at once as the conformance README says.
    static func seconds(_ retryAfter: String) -> Int? {
        RetryAfter.seconds(retryAfter, now: Date())
    }
}
