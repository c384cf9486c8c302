import Hummingbird
import RelinkCore

/// `GET /healthz`: 200 while the service runs, for load balancers and orchestrators.
struct HealthController: Sendable {
    let projects: Int

    func addRoutes(to router: Router<RelinkRequestContext>) {
        router.get(RouterPath(RelinkPaths.health)) { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"status":"ok","projects":\#(projects)}"#)))
        }
    }
}
