import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// What `RequestObservingMiddleware` works out once per request, and what the routes then read from the context.
@Suite("Request facts")
struct RequestFactsTests {
    typealias T = TestSupport

    /// Echoes what the context holds when the route runs.
    static func echo(_ context: RelinkRequestContext) -> String {
        "\(context.origin.host)|\(context.clientNetwork)|\(context.client?.platform.rawValue ?? "-")|\(context.bearer ?? "-")"
    }

    @Test func theMiddlewareWorksOutWhatEachKindOfRouteReads() async throws {
        let router = Router(context: RelinkRequestContext.self)
        router.add(middleware: RequestObservingMiddleware(metrics: nil, forwardedHeaders: T.trustingTestClient))
        for path: RouterPath in ["/healthz", "/v1/echo", "**"] { router.get(path) { _, context in Self.echo(context) } }
        router.post("**") { _, context in Self.echo(context) }
        let headers: HTTPFields = [
            .userAgent: T.Agent.iPhone, .authorization: "Bearer rl_token", RequestOriginTests.hostField: "go.pictlink.com",
            RequestOriginTests.xForwardedFor: "203.0.113.7",
        ]
        try await Application(router: router).test(.router) { client in
            func facts(_ uri: String, _ method: HTTPRequest.Method = .get) async throws -> String {
                try await client.execute(uri: uri, method: method, headers: headers).text
            }
            let (click, api, beacon, health) = (
                try await facts("/abc"), try await facts("/v1/echo"), try await facts("/_/beacon", .post), try await facts("/healthz")
            )
            // A click: everything, the client detected once here for the redirect controller.
            #expect(click == "go.pictlink.com|203.0.113.7|iPhone|rl_token")
            // The API: no client (no API route plans a redirect).
            #expect(api == "go.pictlink.com|203.0.113.7|-|rl_token")
            // A beacon: the origin and network its limit needs.
            #expect(beacon == "go.pictlink.com|203.0.113.7|-|-")
            // The load balancer's probe: nothing at all.
            #expect(health == "|unknown|-|-")
        }
    }

    /// The redirect controller plans for the client in the context: it does not detect it again.
    @Test func clicksArePlannedForTheClientInTheContext() async throws {
        struct ClientOverride: RouterMiddleware {
            typealias Context = RelinkRequestContext
            @concurrent func handle(
                _ request: Request, context: Context, next: @concurrent (Request, Context) async throws -> Response
            ) async throws -> Response {
                var context = context
                context.client = DetectedClient(platform: .android)
                return try await next(request, context)
            }
        }
        let store = try SQLiteStore()
        let logger = Logger(label: "relink.test")
        let resolver = LinkResolver(configuration: T.configuration, store: store, cache: LinkCache(capacity: 100))
        let recorder = EventRecorder(store: store, interval: .seconds(60), logger: logger, metrics: nil, outages: nil)
        let deferred = DeferredLinkService(
            resolver: resolver,
            recorder: DeferredClickRecorder(
                store: store, configuration: T.configuration, interval: .seconds(60), logger: logger, metrics: nil, outages: nil),
            events: recorder, hasher: AddressHasher(secrets: .ephemeral()))
        let router = Router(context: RelinkRequestContext.self)
        router.add(middleware: RequestObservingMiddleware(metrics: nil))
        router.add(middleware: ClientOverride())
        RedirectController(resolver: resolver, pages: try PageRenderer(), recorder: recorder, deferred: deferred).addRoutes(to: router)
        try await Application(router: router).test(.router) { client in
            let response = try await client.execute(
                uri: "/?" + T.sampleQuery, method: .get, headers: T.headers(agent: T.Agent.desktop))
            #expect(response.locationWithoutClickID == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android")
        }
    }

    @Test func theBearerTokenIsReadInAnyCaseAfterSpacesOrTabs() {
        func token(_ value: String?) -> String? {
            BearerCredential.token(in: value.map { [.authorization: $0] } ?? [:]).map(String.init)
        }
        #expect(token("Bearer rl_a") == "rl_a")
        #expect(token("bearer\trl_a") == "rl_a")
        #expect(token("BEARER   rl_a\t") == "rl_a")
        #expect(token("Bearer") == "")
        #expect(token("Bearer   ") == "")
        #expect(token("Bearerrl_a") == nil)
        #expect(token("Basic cmw6YQ==") == nil)
        #expect(token("Bearer\u{301} rl_a") == nil)
        #expect(token(nil) == nil)
    }
}
