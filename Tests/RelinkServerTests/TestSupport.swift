import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkServer
import RelinkStore

/// Shared fixtures: the repository's routes.json and real User-Agents.
enum TestSupport {
    static let configuration: RelinkConfiguration = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../routes.json")
        return try! RelinkConfiguration(json: try! Data(contentsOf: url))
    }()

    /// Forwarded headers trusted from the loopback and private networks and from `app.test(.router)`'s in-memory
    /// client, which has no address.
    static let trustingTestClient = ForwardedHeaderPolicy.trusting(
        TrustedProxies(trustsPeerWithoutAddress: true), header: .xForwardedFor)

    static func application(
        _ configuration: RelinkConfiguration = TestSupport.configuration, trustForwardedHeaders: Bool = false,
        store: (any RelinkStore)? = nil, eventFlushInterval: Duration = .seconds(1), addressHashSecrets: AddressHashSecrets? = nil
    ) throws -> some ApplicationProtocol {
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: configuration,
            forwardedHeaders: trustForwardedHeaders ? TestSupport.trustingTestClient : .none,
            logLevel: .error, store: try store ?? SQLiteStore(), eventFlushInterval: eventFlushInterval,
            addressHashSecrets: addressHashSecrets)
        server.rateLimitElapsed = TestSupport.stillTime
        return try buildApplication(configuration: server)
    }

    /// Rate limits' time held still: no bucket refills, so a burst gets exactly its budget however slowly a busy
    /// machine serves it (how buckets refill is `TokenBucketsTests`').
    static let stillTime: @Sendable () -> Duration = { .zero }

    /// A new in-memory store with a key for `project`.
    static func storeWithKey(project: String = "pictlink") async throws -> (store: SQLiteStore, key: String) {
        let store = try SQLiteStore()
        let (key, _) = try await APIKeys.create(projectId: project, name: "test", in: store)
        return (store, key)
    }

    /// Mints `longLink` through the API with `key`; the short link.
    static func mint(_ longLink: String, key: String, with client: some TestClientProtocol) async throws -> CreateShortLinkResponse {
        let body = try JSONEncoder().encode(["longDynamicLink": longLink])
        let response = try await client.execute(
            uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [:], body: ByteBuffer(bytes: body))
        return try JSONDecoder().decode(CreateShortLinkResponse.self, from: response.data)
    }

    enum Agent {
        static let iPhone =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
        static let iPad =
            "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"
        static let android =
            "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
        static let desktop =
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36"
        static let crawler = "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)"
        static let instagram =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.2.28.111 (iPhone14,2; iOS 17_1; en_US; en; scale=3.00; 1170x2532; 530437442)"
    }

    /// The FDL sample app's long link, as the FDL docs give it.
    static let sampleQuery =
        "link=https%3A%2F%2Fpictlink.com%2FmyPage&apn=jp.furyu.pictlink.android&ibi=jp.furyu.pictlink.ios&ius=pictlink&isi=000000001"

    /// A Play URL's referrer starts with the click's id (`relink_click=<22 characters>&`); this takes it out.
    static func withoutClickID(_ url: String) -> String {
        url.replacing(/&referrer=relink_click%3D[A-Za-z0-9]{22}$/, with: "").replacing(/relink_click%3D[A-Za-z0-9]{22}%26/, with: "")
    }

    static func headers(host: String = "go.pictlink.com", agent: String) -> HTTPFields {
        [HTTPField.Name("Host")!: host, .userAgent: agent]
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }
    /// The Location with the click id of a Play referrer taken out, or nil when there is no such id.
    var locationWithoutClickID: String? { location.map(TestSupport.withoutClickID) }
    var data: Data { Data(text.utf8) }
    var bodyLength: Int { body.readableBytes }
    var location: String? { headers[.location] }
}
