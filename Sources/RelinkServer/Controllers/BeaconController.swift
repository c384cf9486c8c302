import Foundation
import Hummingbird
import RelinkCore

/// `POST <prefix>/_/beacon`: what the preview page's script measured in the browser (screen, time zone,
/// languages), added to its click for matching. Best effort: it always answers 204, so the page learns nothing.
struct BeaconController: Sendable {
    /// Below each domain URI prefix.
    static let path = RelinkPaths.internalPrefix + "beacon"

    let directory: DomainDirectory
    let recorder: DeferredClickRecorder
    let limiter: ClientLimiter

    struct Beacon: Decodable {
        var c: String
        var w: Int?
        var h: Int?
        var tz: String?
        var l: [String]?
    }

    func addRoutes(to router: Router<RelinkRequestContext>) {
        for path: RouterPath in ["/", "**"] {
            router.post(path) { request, context in try await handle(request, context) }
        }
    }

    func handle(_ request: Request, _ context: RelinkRequestContext) async throws -> Response {
        guard let match = directory.match(host: context.origin.host, path: Substring(request.uri.path)), match.relativePath == Self.path
        else {
            // Every other POST outside the API's routes: a link, an unknown path, an unknown API method.
            return try RedirectController.methodNotAllowed(request)
        }
        guard case .success = limiter.acquire(.beacon, network: context.clientNetwork) else {
            return Response(status: .tooManyRequests)
        }
        var request = request
        guard let body = try? await request.collectBody(upTo: 4096),
            let beacon = try? JSONDecoder().decode(Beacon.self, from: Data(body.readableBytesView)), ShortCode(Substring(beacon.c)) != nil
        else { return Response(status: .noContent) }
        let languages = (beacon.l ?? []).prefix(8).compactMap(LanguageList.primary)
        let timeZone = DeviceFingerprint.boundedText(beacon.tz)
        _ = try? await recorder.addBrowserSignals(
            clickId: beacon.c, screen: DeviceFingerprint.screen(width: beacon.w, height: beacon.h), timeZone: timeZone,
            languages: Array(Set(languages)).sorted { languages.firstIndex(of: $0)! < languages.firstIndex(of: $1)! })
        return Response(status: .noContent, headers: [.cacheControl: "no-store"])
    }
}
