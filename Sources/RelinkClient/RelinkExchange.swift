import Foundation
import RelinkAPI

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request of `RelinkTransport`, on a session of its own whose delegate it is. It holds what
/// `URLSession.data(for:)` does not on Linux: the timeout bounds the whole exchange (Linux's Foundation enforces
/// only the idle timeout, so an answer trickled a byte at a time never timed out), the answer is cut off past
/// `maxBytes` instead of buffered whole, a redirect is answered as itself (the body never goes elsewhere), and
/// cancelling the calling task stops the request at once.
final class RelinkExchange: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    /// The status, `Retry-After` and body, or why there are none.
    typealias Outcome = Result<(Int, String?, Data), RelinkError>

    private let server: String
    private let timeout: TimeInterval
    private let maxBytes: Int
    /// Whether an answer with a `Content-Encoding` is refused before its body: Linux's URLSession inflates it ahead
    /// of `maxBytes`, so 2 MB of gzip would take gigabytes. The API client asks for none (`identity`); the app's
    /// transport takes what the platform decodes (Apple's URLSession asks for gzip itself, and a CDN may send it).
    private let refusesEncodedAnswers: Bool
    // Guarded by `lock`: delegate calls, the timer and cancellation come from different threads.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Outcome, Never>?
    private var outcome: Outcome?
    private var task: URLSessionDataTask?
    private var body = Data()

    private init(server: String, timeout: TimeInterval, maxBytes: Int, refusesEncodedAnswers: Bool) {
        self.server = server
        self.timeout = timeout
        self.maxBytes = maxBytes
        self.refusesEncodedAnswers = refusesEncodedAnswers
    }

    /// Sends `request` and answers its outcome within `timeout` seconds.
    static func run(
        _ request: URLRequest, configuration: URLSessionConfiguration, server: String, timeout: TimeInterval, maxBytes: Int,
        refusesEncodedAnswers: Bool = false
    ) async -> Outcome {
        let exchange = RelinkExchange(server: server, timeout: timeout, maxBytes: maxBytes, refusesEncodedAnswers: refusesEncodedAnswers)
        let session = URLSession(configuration: configuration, delegate: exchange, delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let task = session.dataTask(with: request)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in exchange.start(task, continuation) }
        } onCancel: {
            exchange.finish(.failure(RelinkError(kind: .offline, message: "the call was cancelled before \(server) answered")))
        }
    }

    private func start(_ task: URLSessionDataTask, _ continuation: CheckedContinuation<Outcome, Never>) {
        lock.lock()
        if let outcome {
            // Cancelled before it started: nothing is sent.
            lock.unlock()
            continuation.resume(returning: outcome)
            return
        }
        self.continuation = continuation
        self.task = task
        lock.unlock()
        task.resume()
        let message = "no answer from \(server) within \(timeout) s"
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout) { [weak self] in
            self?.finish(.failure(RelinkError(kind: .timeout, message: message)))
        }
    }

    /// Answers `outcome` unless the exchange already has one, and stops the request.
    private func finish(_ outcome: Outcome) {
        lock.lock()
        guard self.outcome == nil else {
            lock.unlock()
            return
        }
        self.outcome = outcome
        let continuation = self.continuation
        let task = self.task
        self.continuation = nil
        lock.unlock()
        task?.cancel()
        continuation?.resume(returning: outcome)
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // Refused by its head, before any of its body is read (or inflated).
        let http = response as? HTTPURLResponse
        if response.expectedContentLength > Int64(maxBytes) {
            completionHandler(.cancel)
            finish(.failure(RelinkError(kind: .malformed, message: "the answer from \(server) is larger than \(maxBytes) bytes")))
            return
        }
        if refusesEncodedAnswers, let encoding = http?.value(forHTTPHeaderField: "Content-Encoding"),
            encoding.lowercased() != "identity"
        {
            completionHandler(.cancel)
            finish(
                .failure(
                    RelinkError(
                        kind: .malformed, message: "the answer from \(server) is compressed (\(encoding.leadingScalars(20))), which was not asked for"
                    )))
            return
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        guard outcome == nil else {
            lock.unlock()
            return
        }
        body.append(data)
        let tooLarge = body.count > maxBytes
        if tooLarge { body = Data() }
        lock.unlock()
        if tooLarge {
            finish(.failure(RelinkError(kind: .malformed, message: "the answer from \(server) is larger than \(maxBytes) bytes")))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        if let error {
            if let error = error as? URLError, error.code == .timedOut {
                finish(.failure(RelinkError(kind: .timeout, message: "no answer from \(server) within \(timeout) s")))
            } else {
                finish(.failure(RelinkError(kind: .offline, message: "cannot reach \(server): \(error.localizedDescription)")))
            }
            return
        }
        guard let http = task.response as? HTTPURLResponse else {
            finish(.failure(RelinkError(kind: .malformed, message: "the answer from \(server) is not HTTP")))
            return
        }
        lock.lock()
        let data = body
        lock.unlock()
        finish(.success((http.statusCode, http.value(forHTTPHeaderField: "Retry-After"), data)))
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
