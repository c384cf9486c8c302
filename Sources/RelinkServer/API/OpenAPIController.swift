import Hummingbird
import RelinkCore

/// `GET /v1/openapi.json`: the OpenAPI 3.1 description of the REST API.
struct OpenAPIController: Sendable {
    func addRoutes(to group: RouterGroup<RelinkRequestContext>) {
        group.get(RouterPath(APIPath.openAPI)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "max-age=300"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: OpenAPIDocument.json)))
        }
    }
}
