import Foundation
import Hummingbird
import Synchronization

/// clients/conformance/email-service.py for the Swift runner, which builds its server in its own process: the
/// upstream of the conformance project's click-tracking host, answering as the README's stand-in email service does.
final class StandInEmailService: Sendable {
    private let clicks = Mutex(0)

    /// The clicks counted so far (`GET /clicks` of the Python service).
    var clickCount: Int { clicks.withLock { $0 } }

    func application() -> some ApplicationProtocol {
        let router = Router()
        router.get("/ls/click") { request, _ -> Response in
            self.clicks.withLock { $0 += 1 }
            guard let slug = request.uri.queryParameters.get("upn"), !slug.isEmpty,
                let encoded = slug.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~")))
            else {
                return Response(
                    status: .notFound, headers: [.contentType: "text/plain"],
                    body: .init(byteBuffer: .init(string: "this tracking link has expired\n")))
            }
            return Response(status: .found, headers: [.location: "https://go.relink.test/\(encoded)", .cacheControl: "no-store"])
        }
        return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}
