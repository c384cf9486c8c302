import Hummingbird
import RelinkCore

/// `GET /v1/openapi.json`: the OpenAPI 3.1 description of the REST API, the bytes of `openapi.json` as they are.
struct OpenAPIController: Sendable {
    /// Made once: every answer shares the same storage.
    private static let body = ByteBuffer(string: OpenAPIDocument.json)

    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.get(RouterPath(APIPath.openAPI)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "max-age=300"],
                body: ResponseBody(byteBuffer: Self.body))
        }
    }
}
