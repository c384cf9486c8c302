import Crypto
import Foundation
import Hummingbird
import RelinkCore

/// Serves each host's `apple-app-site-association` and `assetlinks.json`: generated once from routes.json,
/// `application/json`, 200, never a redirect, with an ETag so Apple's CDN and devices can revalidate cheaply.
struct AssociationController: Sendable {
    struct ServedFile: Sendable {
        let body: ByteBuffer
        let eTag: String

        init(_ data: Data) {
            body = ByteBuffer(bytes: data)
            eTag = "\"" + Hex.string(SHA256.hash(data: data).prefix(16)) + "\""
        }
    }

    let appleFiles: [String: ServedFile]
    let assetLinks: [String: ServedFile]
    let pages: PageRenderer

    init(configuration: RelinkConfiguration, pages: PageRenderer) {
        let files = AssociationFiles.generate(for: configuration)
        appleFiles = Dictionary(uniqueKeysWithValues: files.map { ($0.host, ServedFile($0.appleAppSiteAssociation)) })
        assetLinks = Dictionary(uniqueKeysWithValues: files.map { ($0.host, ServedFile($0.assetLinks)) })
        self.pages = pages
    }

    func addRoutes(to router: Router<RelinkRequestContext>) {
        router.get(RouterPath(RelinkPaths.wellKnownAppleAppSiteAssociation)) { request, context in
            serve(appleFiles, request, context)
        }
        router.get(RouterPath(RelinkPaths.appleAppSiteAssociation)) { request, context in
            serve(appleFiles, request, context)
        }
        router.get(RouterPath(RelinkPaths.assetLinks)) { request, context in
            serve(assetLinks, request, context)
        }
    }

    private func serve(_ files: [String: ServedFile], _ request: Request, _ context: RelinkRequestContext) -> Response {
        let host = DomainDirectory.asciiLowercased(context.origin.host)
        let withoutPort = host.lastIndex(of: ":").map { String(host[..<$0]) }
        guard let file = files[host] ?? withoutPort.flatMap({ files[$0] }) else {
            return pages.message("Unknown link domain", ["Relink serves no project on \(host)."], status: .notFound)
        }
        var headers: HTTPFields = [.contentType: "application/json", .eTag: file.eTag, .cacheControl: "max-age=3600"]
        if request.headers[values: .ifNoneMatch].contains(where: {
            $0.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces) == file.eTag }
        }) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.body))
    }
}
