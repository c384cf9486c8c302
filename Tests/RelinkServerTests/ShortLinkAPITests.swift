import AsyncHTTPClient
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkTestSupport
import Testing

@testable import RelinkServer
@testable import RelinkStore
@testable import RelinkTools

@Suite("Short-link API")
struct ShortLinkAPITests {
    typealias T = TestSupport

    static let sampleLongLink = "https://go.pictlink.com/?" + T.sampleQuery

    static func body(_ json: String) -> ByteBuffer { ByteBuffer(string: json) }

    static func mintBody(_ longLink: String = sampleLongLink, option: String? = nil, custom: String? = nil) -> ByteBuffer {
        var suffix = ""
        if let option { suffix = #", "suffix": {"option": "\#(option)"\#(custom.map { #", "customSuffix": "\#($0)""# } ?? "")}"# }
        return ByteBuffer(string: #"{"longDynamicLink": "\#(longLink)"\#(suffix)}"#)
    }

    static func decode<Value: Decodable>(_ type: Value.Type, _ response: TestResponse) throws -> Value {
        try JSONDecoder().decode(Value.self, from: response.data)
    }

    /// Asserts Google's error body with `status` and a message containing `message`.
    /// A SHORT link minted through the API: its short link, its code, and the short link as a path segment.
    static func mintShort(_ client: some TestClientProtocol, key: String) async throws -> (shortLink: String, code: String, encoded: String) {
        let minted = try Self.decode(
            CreateShortLinkResponse.self,
            try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "SHORT")))
        let code = String(try #require(minted.shortLink.split(separator: "/").last))
        return (minted.shortLink, code, PercentEncoding.encodeQueryValue(minted.shortLink))
    }

    static func expectError(_ response: TestResponse, _ code: HTTPResponse.Status, _ status: String, _ message: String) throws {
        #expect(response.status == code)
        #expect(response.headers[.contentType] == "application/json; charset=utf-8")
        let body = try decode(APIErrorBody.self, response)
        #expect(body.error.code == code.code)
        #expect(body.error.status == status)
        #expect(body.error.message.contains(message), "\(body.error.message)")
    }

    @Test func mintsAndResolvesEachSuffixOption() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            for (option, pattern) in [(nil, 17), ("UNGUESSABLE", 17), ("OPTION_UNSPECIFIED", 17), ("SHORT", 4)] as [(String?, Int)] {
                let long = Self.sampleLongLink + "&utm_content=\(option ?? "none")"
                let response = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(long, option: option))
                #expect(response.status == .ok)
                let minted = try Self.decode(CreateShortLinkResponse.self, response)
                let code = String(minted.shortLink.dropFirst("https://go.pictlink.com/".count))
                #expect(code.count == pattern, "\(option ?? "default"): \(code)")
                #expect(minted.previewLink == minted.shortLink + "?d=1")
                #expect(minted.warning.isEmpty)
                let click = try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: T.Agent.android))
                #expect(click.status == .found)
                #expect(click.location?.hasPrefix("https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android") == true)
            }
            let custom = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "CUSTOM", custom: "spring-sale_2026"))
            #expect(try Self.decode(CreateShortLinkResponse.self, custom).shortLink == "https://go.pictlink.com/spring-sale_2026")
        }
    }

    /// A message quotes at most a few hundred scalars of what it refuses, however they combine: a letter with 20,000
    /// combining marks is one character, and answers echoed it whole (40 to 60 KB).
    @Test func errorsQuoteInputByScalar() async throws {
        let store = try SQLiteStore()
        let (key, _) = try await APIKeys.create(projectId: "pictlink", name: "test", in: store)
        let marked = "a" + String(repeating: "\u{301}", count: 20_000)
        try await T.application(store: store).test(.router) { client in
            let bodies = [
                ("/v1/shortLinks?key=\(key)", #"{"longDynamicLink": "\#(marked)"}"#),
                (
                    "/v1/shortLinks?key=\(key)",
                    #"{"longDynamicLink": "https://go.pictlink.com/?link=https://pictlink.com/a", "suffix": {"option": "CUSTOM", "customSuffix": "\#(marked)"}}"#
                ),
                ("/v1/reopenAttribution", #"{"requestedLink": "\#(marked)"}"#),
            ]
            for (uri, body) in bodies {
                let response = try await client.execute(
                    uri: uri, method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                #expect((400..<500).contains(response.status.code))
                #expect(response.body.readableBytes < 2_000, "\(uri): \(response.body.readableBytes) bytes")
            }
        }
    }

    @Test func mintsFromDynamicLinkInfoWithWarnings() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        let json = #"""
            {"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "link": "https://pictlink.com/spring",
              "androidInfo": {"androidPackageName": "jp.furyu.pictlink.android", "androidMinPackageVersionCode": "42"},
              "iosInfo": {"iosBundleId": "jp.furyu.pictlink.ios", "iosAppStoreId": "abc"},
              "navigationInfo": {"enableForcedRedirect": true},
              "analyticsInfo": {"googlePlayAnalytics": {"utmSource": "mail", "gclid": "x"}, "itunesConnectAnalytics": {"at": "1l"}},
              "socialMetaTagInfo": {"socialTitle": "Spring"}, "desktopInfo": {"desktopFallbackLink": "https://pictlink.com/web"}},
             "suffix": {"option": "SHORT"}}
            """#
        try await app.test(.router) { client in
            let response = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [.authorization: "Bearer \(key)"], body: Self.body(json))
            #expect(response.status == .ok)
            let minted = try Self.decode(CreateShortLinkResponse.self, response)
            #expect(Set(minted.warning.map(\.warningCode)) == ["NOT_NUMERIC_IOS_APP_STORE_ID", "DEPRECATED_PARAM"])
            let code = minted.shortLink.split(separator: "/").last!
            let desktop = try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: T.Agent.desktop))
            #expect(desktop.location == "https://pictlink.com/web")
            let android = try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: T.Agent.android))
            #expect(
                android.locationWithoutClickID
                    == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Dmail%26amv%3D42")
            // Legacy dynamicLinkDomain works too.
            let legacy = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post,
                body: Self.body(#"{"dynamicLinkInfo": {"dynamicLinkDomain": "go.pictlink.com", "link": "https://pictlink.com/legacy"}}"#))
            #expect(legacy.status == .ok)
        }
    }

    @Test func theSameRequestMintsTheSameLink() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            var links: Set<String> = []
            for option in ["SHORT", "SHORT", "UNGUESSABLE", "UNGUESSABLE"] {
                let response = try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: option))
                links.insert(try Self.decode(CreateShortLinkResponse.self, response).shortLink)
            }
            #expect(links.count == 2)
            // The same link in FDL's other spelling is the same request.
            let info = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post,
                body: Self.body(
                    #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "link": "https://pictlink.com/myPage", "androidInfo": {"androidPackageName": "jp.furyu.pictlink.android"}, "iosInfo": {"iosBundleId": "jp.furyu.pictlink.ios", "iosCustomScheme": "pictlink", "iosAppStoreId": "000000001"}}, "suffix": {"option": "SHORT"}}"#
                ))
            #expect(links.contains(try Self.decode(CreateShortLinkResponse.self, info).shortLink))
            // CUSTOM: the same link may ask again; another link may not take the code.
            let first = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "CUSTOM", custom: "spring"))
            let again = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "CUSTOM", custom: "spring"))
            #expect(first.status == .ok)
            #expect(try Self.decode(CreateShortLinkResponse.self, again).shortLink == "https://go.pictlink.com/spring")
            let taken = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post,
                body: Self.mintBody("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fother", option: "CUSTOM", custom: "spring"))
            try Self.expectError(taken, .conflict, "ALREADY_EXISTS", "The custom suffix 'spring' is already used")
        }
    }

    @Test(.loadsTheMachine) func twoHundredConcurrentShortMintsGetTwoHundredCodes() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        // AsyncHTTPClient, so the 200 requests really are in flight at once, on 64 connections; with time to wait for
        // one (its default 10 s is not enough when the other suites load the machine and mints queue for SQLite).
        try await app.test(.live) { client in
            let port = try #require(client.port)
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
            configuration.timeout.connect = .seconds(60)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            let minted: Result<[String], any Error>
            do {
                minted = .success(
                    try await withThrowingTaskGroup(of: String.self) { group in
                        for index in 0..<200 {
                            group.addTask {
                                let long = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fitem%2F\(index)&apn=jp.furyu.pictlink.android"
                                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/shortLinks?key=\(key)")
                                request.method = .POST
                                request.headers.add(name: "Host", value: "go.pictlink.com")
                                request.body = .bytes(Self.mintBody(long, option: "SHORT"))
                                let response = try await http.execute(request, timeout: .seconds(60))
                                let body = try await response.body.collect(upTo: 1 << 20)
                                #expect(response.status == .ok)
                                return try JSONDecoder().decode(CreateShortLinkResponse.self, from: Data(body.readableBytesView)).shortLink
                            }
                        }
                        return try await group.reduce(into: [String]()) { $0.append($1) }
                    })
            } catch {
                minted = .failure(error)
            }
            try await http.shutdown()
            let codes = try minted.get()
            #expect(codes.count == 200)
            #expect(Set(codes).count == 200)
            // The same request twice, at once, mints one link.
            async let first = client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "SHORT"))
            async let second = client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "SHORT"))
            let pair = try await [first, second].map { try Self.decode(CreateShortLinkResponse.self, $0).shortLink }
            #expect(pair[0] == pair[1])
        }
        // Every code works (AsyncHTTPClient would follow the redirects out, so click through the router).
        try await T.application(store: store).test(.router) { client in
            for link in try await store.links(projectId: "pictlink", beforeId: nil, limit: 1000) {
                #expect(link.code.count >= 4)
                let click = try await client.execute(uri: "/\(link.code)", method: .get, headers: T.headers(agent: T.Agent.desktop))
                #expect(click.status == .found)
            }
        }
        let stored = try await store.links(projectId: "pictlink", beforeId: nil, limit: 1000)
        #expect(Set(stored.map(\.code)).count == 201)
        #expect(Set(stored.map(\.longLink)).count == 201)
    }

    @Test func authentication() async throws {
        let (store, key) = try await T.storeWithKey()
        let (otherKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        let (revoked, record) = try await APIKeys.create(projectId: "pictlink", name: nil, in: store)
        _ = try await store.revokeAPIKey(id: record.id)
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            try Self.expectError(
                try await client.execute(uri: "/v1/shortLinks", method: .post, body: Self.mintBody()), .unauthorized, "UNAUTHENTICATED",
                "unregistered callers")
            try Self.expectError(
                try await client.execute(uri: "/v1/shortLinks?key=rl_wrong", method: .post, body: Self.mintBody()), .unauthorized,
                "UNAUTHENTICATED", "API key not valid")
            try Self.expectError(
                try await client.execute(uri: "/v1/shortLinks?key=\(revoked)", method: .post, body: Self.mintBody()), .unauthorized,
                "UNAUTHENTICATED", "API key not valid")
            try Self.expectError(
                try await client.execute(uri: "/v1/shortLinks?key=\(otherKey)", method: .post, body: Self.mintBody()), .forbidden,
                "PERMISSION_DENIED", "Your project does not own Dynamic Links domain: https://go.pictlink.com")
            let iOSHeader = HTTPField.Name("X-Ios-Bundle-Identifier")!
            try Self.expectError(
                try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [iOSHeader: "com.other.app"], body: Self.mintBody()),
                .forbidden, "PERMISSION_DENIED", "com.other.app")
            let allowed = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [iOSHeader: "jp.furyu.pictlink.ios"], body: Self.mintBody())
            #expect(allowed.status == .ok)
        }
    }

    @Test func rateLimitAnswers429WithRetryAfter() async throws {
        var configuration = T.configuration
        // One token per 100 s (the tests' rate limits read a clock held still).
        configuration.projects[0].rateLimit = RateLimit(requestsPerSecond: 0.01, burst: 3)
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(configuration, store: store)
        try await app.test(.router) { client in
            for _ in 0..<3 {
                #expect(try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody()).status == .ok)
            }
            let limited = try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody())
            try Self.expectError(limited, .tooManyRequests, "RESOURCE_EXHAUSTED", "Quota exceeded for minting with this API key")
            // The bucket was emptied at once: the next token comes 100 s later.
            #expect(limited.headers[.retryAfter] == "100", "\(limited.headers)")
        }
    }

    /// The issue's 300 bogus keys: after 20 failures from one address the rest are 429s that say so; a good key
    /// from that address still works (a scanner behind a shared NAT locks nobody out), other addresses are not
    /// affected, and the addresses of one IPv6 /64 share a budget.
    @Test func failedKeysFromOneAddressAreLimited() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(trustForwardedHeaders: true, store: store)
        let forwardedFor = HTTPField.Name("X-Forwarded-For")!
        try await app.test(.router) { client in
            var statuses: [HTTPResponse.Status: Int] = [:]
            for attempt in 0..<300 {
                let response = try await client.execute(
                    uri: "/v1/shortLinks?key=rl_guess\(attempt)", method: .post, headers: [forwardedFor: "203.0.113.7"],
                    body: Self.mintBody())
                statuses[response.status, default: 0] += 1
                if attempt == 299 {
                    try Self.expectError(response, .tooManyRequests, "RESOURCE_EXHAUSTED", "failed API key attempts from this address")
                    #expect(Int(response.headers[.retryAfter] ?? "") ?? 0 >= 1)
                }
            }
            // The burst of 20.
            #expect(statuses[.unauthorized] == 20, "\(statuses)")
            #expect((statuses[.unauthorized] ?? 0) + (statuses[.tooManyRequests] ?? 0) == 300)
            // Bearer keys count the same.
            let bearer = try await client.execute(
                uri: "/v1/shortLinks", method: .post, headers: [forwardedFor: "203.0.113.7", .authorization: "Bearer rl_guess"],
                body: Self.mintBody())
            #expect(bearer.status == .tooManyRequests)
            let goodFromThere = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [forwardedFor: "203.0.113.7"], body: Self.mintBody())
            #expect(goodFromThere.status == .ok)
            var v6: [HTTPResponse.Status] = []
            for host in 1...25 {
                v6.append(
                    try await client.execute(
                        uri: "/v1/shortLinks?key=rl_guess", method: .post, headers: [forwardedFor: "2001:db8:7:8::\(host)"],
                        body: Self.mintBody()
                    ).status)
            }
            #expect(v6.filter { $0 == .unauthorized }.count == 20)
            let elsewhere = try await client.execute(
                uri: "/v1/shortLinks?key=rl_guess", method: .post, headers: [forwardedFor: "198.51.100.9"], body: Self.mintBody())
            #expect(elsewhere.status == .unauthorized)
            let good = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [forwardedFor: "198.51.100.9"], body: Self.mintBody())
            #expect(good.status == .ok)
            // Good keys spend nothing: a busy client is never limited by this.
            for _ in 0..<40 {
                let stats = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [forwardedFor: "198.51.100.10"], body: Self.mintBody())
                #expect(stats.status != .unauthorized)
            }
            #expect(
                try await client.execute(
                    uri: "/v1/shortLinks?key=rl_guess", method: .post, headers: [forwardedFor: "198.51.100.10"], body: Self.mintBody()
                ).status == .unauthorized)
        }
    }

    @Test func badInputIsA4xxJSONError() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        let path = "/v1/shortLinks?key=\(key)"
        let cases: [(ByteBuffer?, HTTPResponse.Status, String)] = [
            (Self.body("{not json"), .badRequest, "Invalid JSON payload received"),
            (Self.body("[1, 2]"), .badRequest, "Invalid JSON payload received"),
            (Self.body(#"{"longDynamicLink": 42}"#), .badRequest, "Invalid JSON payload received"),
            // A key twice meant its first value here and, to most proxies that check bodies, its last.
            (
                Self.body(#"{"longDynamicLink": "https://evil.example/", "longDynamicLink": "\#(Self.sampleLongLink)"}"#), .badRequest,
                "the request body has the key \"longDynamicLink\" twice"
            ),
            (Self.body(String(repeating: "[", count: 100) + String(repeating: "]", count: 100)), .badRequest, "nests deeper than 64"),
            (nil, .badRequest, "needs a JSON body"),
            (Self.body("{}"), .badRequest, "needs a longDynamicLink or a dynamicLinkInfo"),
            (Self.body(#"{"longDynamicLink": "x", "dynamicLinkInfo": {}}"#), .badRequest, "not both"),
            (
                ByteBuffer(string: #"{"longDynamicLink": ""# + String(repeating: "a", count: 70_000) + #""}"#), .contentTooLarge,
                "larger than 65536 bytes"
            ),
            (Self.mintBody(option: "TINY"), .badRequest, "Invalid value at 'suffix.option'"),
            (Self.mintBody(option: "CUSTOM"), .badRequest, "suffix.customSuffix must be"),
            (Self.mintBody(option: "CUSTOM", custom: "no/slash"), .badRequest, "suffix.customSuffix must be"),
            (Self.mintBody(option: "CUSTOM", custom: "healthz"), .badRequest, "is reserved"),
            (
                Self.mintBody("https://go.pictlink.com/?link=https%3A%2F%2Fevil.example%2F"), .badRequest,
                "We could not match param 'https://evil.example/' (link)"
            ),
            (Self.mintBody("https://go.pictlink.com/?link=javascript:alert(1)"), .badRequest, "'link' must be an http or https URL"),
            (Self.mintBody("https://go.pictlink.com/?apn=x.y"), .badRequest, "has no 'link' parameter"),
            (Self.mintBody("not a link"), .badRequest, "Long link is not parsable: not a link"),
            (
                Self.mintBody("https://unknown.example/?link=https%3A%2F%2Fpictlink.com%2F"), .badRequest,
                "Your project does not own Dynamic Links domain: https://unknown.example"
            ),
            (Self.mintBody("https://go.pictlink.com/Ab3x"), .badRequest, "Cannot shorten a short Dynamic Link: https://go.pictlink.com/Ab3x"),
            (
                Self.body(#"{"dynamicLinkInfo": {"link": "https://pictlink.com/"}}"#), .badRequest,
                "Invalid Dynamic Link domain: '' or Domain Uri Prefix: ''. Expecting exactly one."
            ),
            (
                Self.body(
                    #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "dynamicLinkDomain": "go.pictlink.com", "link": "https://pictlink.com/"}}"#
                ), .badRequest, "Expecting exactly one"
            ),
        ]
        try await app.test(.router) { client in
            for (body, status, message) in cases {
                let response = try await client.execute(uri: path, method: .post, body: body)
                #expect(response.status.code < 500)
                try Self.expectError(response, status, status == .contentTooLarge ? "INVALID_ARGUMENT" : "INVALID_ARGUMENT", message)
            }
            try Self.expectError(try await client.execute(uri: "/v1/nothing", method: .get), .notFound, "NOT_FOUND", "No such API method")
            try Self.expectError(
                try await client.execute(uri: "/v1/links?key=\(key)&pageSize=0", method: .get), .badRequest, "INVALID_ARGUMENT", "pageSize")
            // Digits only, as documented: `Int` alone read `+7` as 7.
            try Self.expectError(
                try await client.execute(uri: "/v1/links?key=\(key)&pageSize=%2B7", method: .get), .badRequest, "INVALID_ARGUMENT", "pageSize")
            for twice in ["pageSize=2&pageSize=3", "q=a&q=b", "pageToken=5&pageToken=6"] {
                try Self.expectError(
                    try await client.execute(uri: "/v1/links?key=\(key)&\(twice)", method: .get), .badRequest, "INVALID_ARGUMENT",
                    "may each be given once")
            }
            try Self.expectError(
                try await client.execute(uri: "/v1/links/nonsense?key=\(key)", method: .get), .badRequest, "INVALID_ARGUMENT", "is not a short link")
        }
    }

    /// `metrics` was minted and then shadowed once `/metrics` was served (`--metrics-token`): every path Relink
    /// serves, and the probe names orchestrators ask for, are refused on every server whatever its options.
    @Test func codesOfRelinksOwnPathsAreRefusedWhateverTheServersOptions() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            for code in ["metrics", "readyz", "livez", "openapi", "healthz", "console", "v1", "_", "apple-app-site-association"] {
                let response = try await client.execute(
                    uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(option: "CUSTOM", custom: code))
                try Self.expectError(response, .badRequest, "INVALID_ARGUMENT", "The custom suffix '\(code)' is reserved")
            }
        }
    }

    /// A link changed since it was minted no longer answers the request that minted it: that request mints a new
    /// link (it got the changed one, going elsewhere), and so does it once the link is disabled. A custom code asked
    /// again with another expiry is another link's request (it got the first).
    @Test func theSameRequestAfterAnEditMintsANewLink() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            func mint(_ body: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.body(body))
            }
            func patch(_ link: String, _ body: String) async throws {
                let response = try await client.execute(
                    uri: "/v1/links/\(PercentEncoding.encodeQueryValue(link))?key=\(key)", method: .patch, body: Self.body(body))
                #expect(response.status == .ok)
            }
            let one = #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fone", "suffix": {"option": "SHORT"}}"#
            let first = try Self.decode(CreateShortLinkResponse.self, try await mint(one)).shortLink
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint(one)).shortLink == first)
            try await patch(first, #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Ftwo"}"#)
            let second = try Self.decode(CreateShortLinkResponse.self, try await mint(one)).shortLink
            #expect(second != first)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint(one)).shortLink == second)

            let named = #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fthree", "name": "Spring"}"#
            let spring = try Self.decode(CreateShortLinkResponse.self, try await mint(named)).shortLink
            try await patch(spring, #"{"name": "Autumn"}"#)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint(named)).shortLink != spring)

            let four = #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Ffour"}"#
            let disabled = try Self.decode(CreateShortLinkResponse.self, try await mint(four)).shortLink
            try await patch(disabled, #"{"disabled": true}"#)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint(four)).shortLink != disabled)
            // A change of what the request does not cover keeps the link its request's.
            let five = #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Ffive"}"#
            let previewed = try Self.decode(CreateShortLinkResponse.self, try await mint(five)).shortLink
            try await patch(previewed, #"{"fetchPreview": false}"#)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint(five)).shortLink == previewed)

            let custom = { (expiry: String) in
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fsix", "expireTime": "\#(expiry)", "suffix": {"option": "CUSTOM", "customSuffix": "six"}}"#
            }
            #expect(try await mint(custom("2030-01-01T00:00:00Z")).status == .ok)
            #expect(try await mint(custom("2030-01-01T00:00:00Z")).status == .ok)
            try Self.expectError(try await mint(custom("2031-01-01T00:00:00Z")), .conflict, "ALREADY_EXISTS", "already used")
            // Nor does a custom code's link once it is disabled.
            try await patch("https://go.pictlink.com/six", #"{"disabled": true}"#)
            try Self.expectError(try await mint(custom("2030-01-01T00:00:00Z")), .conflict, "ALREADY_EXISTS", "disabled link")
        }
    }

    /// The length limit holds whatever form the link comes in: FDL's `dynamicLinkInfo` (mint and edit) was taken at any
    /// length, and each such link then weighed its length many times over in the link cache.
    @Test func aLinkOverTheLengthLimitIsRefusedInEveryForm() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        let title = String(repeating: "x", count: 7_200)
        let info =
            #"{"dynamicLinkInfo": {"domainUriPrefix": "https://go.pictlink.com", "link": "https://pictlink.com/a", "socialMetaTagInfo": {"socialTitle": "\#(title)"}}}"#
        try await app.test(.router) { client in
            try Self.expectError(
                try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.body(info)), .badRequest, "INVALID_ARGUMENT",
                "the limit is 7168")
            let minted = try Self.decode(
                CreateShortLinkResponse.self, try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody()))
            try Self.expectError(
                try await client.execute(
                    uri: "/v1/links/\(PercentEncoding.encodeQueryValue(minted.shortLink))?key=\(key)", method: .patch, body: Self.body(info)),
                .badRequest, "INVALID_ARGUMENT", "the limit is 7168")
            // Just under the limit is still a link.
            let shorter = info.replacingOccurrences(of: title, with: String(repeating: "x", count: 7_000))
            #expect(try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.body(shorter)).status == .ok)
        }
    }

    /// A link whose other destinations lead back into a link domain would loop, counted at each turn: refused.
    @Test func destinationsIntoALinkDomainAreRefused() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let bodies = [
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa&ofl=https%3A%2F%2Fpictlink.com%2Flinks%2Floop"}"#,
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fx%2F..%2Flinks%2Floop"}"#,
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa", "expireTime": "2020-01-01T00:00:00Z", "expiredLink": "https://go.pictlink.com/loop"}"#,
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa", "rules": {"rules": [{"when": {"platforms": ["desktop"]}, "then": {"ofl": "https://pictlink.com/links/loop"}}]}}"#,
            ]
            for body in bodies {
                let response = try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.body(body))
                #expect(response.status == .badRequest, "\(body)")
                #expect(response.text.contains("link domain"), "\(response.text)")
            }
        }
    }

    @Test func managingLinksTakesEffectOnTheNextClick() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let (shortLink, code, encoded) = try await Self.mintShort(client, key: key)
            func click() async throws -> TestResponse {
                try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: T.Agent.desktop))
            }
            #expect(try await click().location == "https://pictlink.com")

            let shown = try Self.decode(ManagedLink.self, try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .get))
            #expect(shown.shortLink == shortLink)
            #expect(shown.suffixOption == .short)
            #expect(shown.longDynamicLink.contains("link=https%3A%2F%2Fpictlink%2Ecom%2FmyPage"))

            let patch =
                #"{"longDynamicLink": "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fnew&ofl=https%3A%2F%2Fpictlink.com%2Fdesk"}"#
            let changed = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(patch))
            #expect(changed.status == .ok)
            #expect(try await click().location == "https://pictlink.com/desk")

            let wrongDomain = #"{"longDynamicLink": "https://pictlink.com/links/?link=https%3A%2F%2Fpictlink.com%2Fnew"}"#
            try Self.expectError(
                try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(wrongDomain)),
                .badRequest, "INVALID_ARGUMENT", "must be on the short link's domain")

            _ = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"disabled": true}"#))
            let gone = try await click()
            #expect(gone.status == .gone)
            #expect(gone.text.contains("disabled"))
            _ = try await client.execute(
                uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"disabled": false, "expireTime": "2020-01-01T00:00:00Z"}"#)
            )
            #expect(try await click().status == .gone)
            _ = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"expireTime": ""}"#))
            #expect(try await click().status == .found)
            try Self.expectError(
                try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"expireTime": "tomorrow"}"#)),
                .badRequest, "INVALID_ARGUMENT", "RFC 3339")
        }
    }

    /// After an edit, the next click reads the link as stored, not the editing instance's own copy: another
    /// instance's change committed just after it (its notice already applied here) must not be hidden for the
    /// cache's whole age. The store's row is changed underneath, as that other instance would.
    @Test func aClickAfterAnEditReadsTheLinkAsStored() async throws {
        let (store, key) = try await T.storeWithKey()
        try await T.application(store: store).test(.router) { client in
            let (_, code, encoded) = try await Self.mintShort(client, key: key)
            func click() async throws -> TestResponse {
                try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: T.Agent.desktop))
            }
            _ = try await click()
            let renamed = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"name": "x"}"#))
            #expect(renamed.status == .ok)
            let stored = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
            _ = try await store.updateLink(id: stored.id) { link in
                var disabled = link
                disabled.disabled = true
                return disabled
            }
            #expect(try await click().status == .gone)
        }
    }

    /// Imported names and the archived flag, and a name given when minting, come back from every call that
    /// answers a link.
    @Test func namesAndTheArchivedFlagAreAnswered() async throws {
        let (store, key) = try await T.storeWithKey()
        let imported = try await FirebaseImporterTests.run(
            [FirebaseImporterTests.row("Old1", archived: true, name: "Spring ☀️, \"sale\""), FirebaseImporterTests.row("New1")], store: store)
        #expect(imported.imported == 2)
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let list = try Self.decode(LinkListResponse.self, try await client.execute(uri: "/v1/links?key=\(key)", method: .get))
            let old = try #require(list.links.first { $0.shortLink == "https://go.pictlink.com/Old1" })
            let new = try #require(list.links.first { $0.shortLink == "https://go.pictlink.com/New1" })
            #expect(old.name == "Spring ☀️, \"sale\"" && old.archived == true)
            #expect(new.name == nil && new.archived == false)
            // The flag is always there, false too.
            let raw = try await client.execute(uri: "/v1/links?key=\(key)", method: .get)
            #expect(raw.text.contains(#""archived":false"#) && raw.text.contains(#""archived":true"#), "\(raw.text)")

            let encoded = PercentEncoding.encodeQueryValue(old.shortLink)
            let shown = try Self.decode(ManagedLink.self, try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .get))
            #expect(shown.name == old.name && shown.archived == true)
            let patched = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"disabled": false}"#))
            #expect(patched.status == .ok)
            let afterPatch = try Self.decode(ManagedLink.self, patched)
            #expect(afterPatch.name == old.name && afterPatch.archived == true)
            // Renamed, then the name removed; a name with a line break is refused.
            func rename(_ json: String) async throws -> TestResponse {
                try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(json))
            }
            #expect(try Self.decode(ManagedLink.self, try await rename(#"{"name": "Renamed"}"#)).name == "Renamed")
            #expect(try Self.decode(ManagedLink.self, try await rename(#"{"name": ""}"#)).name == nil)
            #expect(try await rename(#"{"name": "two\nlines"}"#).status == .badRequest)

            // A name given when minting is stored as an imported one is, and search finds it.
            let long = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fnamed"
            func mint(_ name: String?) async throws -> TestResponse {
                let body = try JSONEncoder().encode(CreateShortLinkRequest(longDynamicLink: long, name: name))
                return try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: ByteBuffer(bytes: body))
            }
            let named = try Self.decode(CreateShortLinkResponse.self, try await mint("Summer <b>sale</b>"))
            let stored = try #require(
                try await store.link(domain: "https://go.pictlink.com", code: String(named.shortLink.split(separator: "/").last!)))
            #expect(stored.name == "Summer <b>sale</b>" && !stored.archived)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint("Summer <b>sale</b>")).shortLink == named.shortLink)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint("Autumn")).shortLink != named.shortLink)
            #expect(try Self.decode(CreateShortLinkResponse.self, try await mint("  ")).shortLink != named.shortLink)
            let found = try Self.decode(LinkListResponse.self, try await client.execute(uri: "/v1/links?key=\(key)&q=summer", method: .get))
            #expect(found.links.map(\.shortLink) == [named.shortLink] && found.links.first?.name == "Summer <b>sale</b>")
            try Self.expectError(try await mint("line\nbreak"), .badRequest, "INVALID_ARGUMENT", "control characters")
            try Self.expectError(try await mint(String(repeating: "é", count: 201)), .badRequest, "INVALID_ARGUMENT", "at most 200 characters")
            #expect(try await mint(String(repeating: "é", count: 200)).status == .ok)
        }
    }

    @Test func listingPagesThroughAProjectsLinks() async throws {
        let (store, key) = try await T.storeWithKey()
        let (otherKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            for index in 0..<5 {
                let long = "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2F\(index)"
                _ = try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(long))
            }
            let first = try Self.decode(LinkListResponse.self, try await client.execute(uri: "/v1/links?key=\(key)&pageSize=3", method: .get))
            #expect(first.links.count == 3)
            let token = try #require(first.nextPageToken)
            let second = try Self.decode(
                LinkListResponse.self, try await client.execute(uri: "/v1/links?key=\(key)&pageSize=3&pageToken=\(token)", method: .get))
            #expect(second.links.count == 2)
            #expect(second.nextPageToken == nil)
            #expect(Set((first.links + second.links).map(\.shortLink)).count == 5)
            let others = try Self.decode(LinkListResponse.self, try await client.execute(uri: "/v1/links?key=\(otherKey)", method: .get))
            #expect(others.links.isEmpty)
            let encoded = PercentEncoding.encodeQueryValue(first.links[0].shortLink)
            try Self.expectError(
                try await client.execute(uri: "/v1/links/\(encoded)?key=\(otherKey)", method: .get), .forbidden, "PERMISSION_DENIED",
                "belongs to another project")
        }
    }

    /// A page holds at most `pageSize` links and ends early past 4 MB, with `nextPageToken`: links of 64 KB, a
    /// thousand to a page, for each of many slow readers would take gigabytes. Paging still reaches every link once.
    @Test func aPageOfLargeLinksEndsEarlyAndPagingReachesThemAll() async throws {
        let (store, key) = try await T.storeWithKey()
        let filler = String(repeating: "a", count: 40_000)
        for index in 0..<130 {
            var parameters = LinkParameters()
            parameters.link = "https://pictlink.com/\(index)?\(filler)"
            _ = try await store.insertLink(
                ShortLinkDraft(
                    projectId: "pictlink", domain: "https://go.pictlink.com", code: "big\(index)",
                    longLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2F\(index)%3F\(filler)", parameters: parameters,
                    suffixOption: .custom, idempotencyKey: nil, createdAt: Date()))
        }
        try await T.application(store: store).test(.router) { client in
            var token: String?
            var seen: [String] = []
            var pages = 0
            repeat {
                let response = try await client.execute(
                    uri: "/v1/links?key=\(key)&pageSize=1000" + (token.map { "&pageToken=\($0)" } ?? ""), method: .get)
                #expect(response.data.count < LinksController.maximumPageBytes + 200_000, "\(response.data.count) bytes")
                let page = try Self.decode(LinkListResponse.self, response)
                seen += page.links.map(\.shortLink)
                token = page.nextPageToken
                pages += 1
            } while token != nil && pages < 20
            #expect(pages > 1 && token == nil)
            #expect(seen.count == 130 && Set(seen).count == 130)
        }
        // Small links are read 50 at a time: pages of 60 are whole, across those reads, and the last ends the list.
        let (smallKey, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        for index in 0..<110 {
            var parameters = LinkParameters()
            parameters.link = "https://fieldnotes.example/\(index)"
            _ = try await store.insertLink(
                ShortLinkDraft(
                    projectId: "fieldnotes", domain: T.configuration.projects.first { $0.id == "fieldnotes" }!.domains[0].description,
                    code: "s\(index)", longLink: "https://x.example/?link=\(index)", parameters: parameters, suffixOption: .custom,
                    idempotencyKey: nil, createdAt: Date()))
        }
        try await T.application(store: store).test(.router) { client in
            var counts: [Int] = []
            var token: String?
            repeat {
                let page = try Self.decode(
                    LinkListResponse.self,
                    try await client.execute(uri: "/v1/links?key=\(smallKey)&pageSize=60" + (token.map { "&pageToken=\($0)" } ?? ""), method: .get))
                counts.append(page.links.count)
                token = page.nextPageToken
            } while token != nil && counts.count < 5
            #expect(counts == [60, 50])
        }
    }

    @Test func linkStatsCountsEachPlatform() async throws {
        let (store, key) = try await T.storeWithKey()
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let (_, code, encoded) = try await Self.mintShort(client, key: key)
            for (agent, times) in [(T.Agent.iPhone, 2), (T.Agent.android, 3), (T.Agent.desktop, 1), (T.Agent.crawler, 4)] {
                for _ in 0..<times { _ = try await client.execute(uri: "/\(code)", method: .get, headers: T.headers(agent: agent)) }
            }
            // Neither HEAD nor the debug page is a click.
            _ = try await client.execute(uri: "/\(code)", method: .head, headers: T.headers(agent: T.Agent.android))
            _ = try await client.execute(uri: "/\(code)?d=1", method: .get, headers: T.headers(agent: T.Agent.android))
            let stats = try Self.decode(
                LinkStatsResponse.self, try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=7&key=\(key)", method: .get))
            let counts = Dictionary(uniqueKeysWithValues: stats.linkEventStats.map { ("\($0.platform.rawValue) \($0.event.rawValue)", $0.count) })
            // The iPhone gets the preview page (no redirect yet); the others are redirected.
            #expect(counts == ["IOS CLICK": "2", "ANDROID CLICK": "3", "ANDROID REDIRECT": "3", "DESKTOP CLICK": "1", "DESKTOP REDIRECT": "1"])
            let withCrawlers = try Self.decode(
                LinkStatsResponse.self,
                try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=7&includeCrawlers=true&key=\(key)", method: .get))
            #expect(withCrawlers.linkEventStats.contains { $0.platform == .crawler && $0.event == .click && $0.count == "4" })
            try Self.expectError(
                try await client.execute(uri: "/v1/\(encoded)/linkStats?key=\(key)", method: .get), .badRequest, "INVALID_ARGUMENT",
                "durationDays is required")
            try Self.expectError(
                try await client.execute(uri: "/v1/\(encoded)/linkStats?durationDays=-3&key=\(key)", method: .get), .badRequest,
                "INVALID_ARGUMENT", "durationDays must be")
            let unknown = PercentEncoding.encodeQueryValue("https://go.pictlink.com/nope")
            try Self.expectError(
                try await client.execute(uri: "/v1/\(unknown)/linkStats?durationDays=7&key=\(key)", method: .get), .notFound, "NOT_FOUND",
                "Short URL (https://go.pictlink.com/nope) not found.")
        }
    }

    @Test func clicksAreAllWrittenOnGracefulShutdown() async throws {
        let store = try SQLiteStore()
        let link = try await store.insertLink(
            ShortLinkDraft(
                projectId: "pictlink", domain: "https://go.pictlink.com", code: "count", longLink: Self.sampleLongLink,
                parameters: LongLink.parse(Self.sampleLongLink).parameters, suffixOption: .custom, idempotencyKey: nil, createdAt: Date()))
        // A long flush interval: only the shutdown flush can write these.
        let app = try T.application(store: store, eventFlushInterval: .seconds(3600))
        let clicks = 137
        try await app.test(.live) { client in
            for index in 0..<clicks {
                let agent = [T.Agent.iPhone, T.Agent.android, T.Agent.desktop][index % 3]
                // In absolute form: the live client sends its own `Host: localhost`.
                let response = try await client.execute(uri: "http://go.pictlink.com/count", method: .get, headers: [.userAgent: agent])
                #expect(response.status.code < 400)
            }
        }
        let counts = try await store.eventCounts(linkId: link.id, fromDay: 0)
        #expect(counts.filter { $0.event == .click }.map(\.count).reduce(0, +) == Int64(clicks))
    }

    @Test func openAPIDocumentsEveryAPIRoute() async throws {
        let store = try SQLiteStore()
        let configuration = ServerConfiguration(relink: T.configuration, store: store)
        let parts = try ApplicationParts(configuration: configuration, logger: Logger(label: "test")).router.routes
            .map { (path: $0.path.description, method: $0.method.rawValue) }
        let document = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8)) as? [String: Any]
        let paths = try #require(document?["paths"] as? [String: [String: Any]])
        #expect(document?["openapi"] as? String == "3.1.0")
        let apiRoutes = parts.filter { $0.path.hasPrefix("/v1") }
        #expect(apiRoutes.count >= 6)
        for route in apiRoutes {
            // Hummingbird writes parameters as {name}, as OpenAPI does.
            let operations = paths[route.path]
            #expect(operations?[route.method.lowercased()] != nil, "\(route.method) \(route.path) is not in the OpenAPI document")
        }
        let app = try T.application(store: store)
        try await app.test(.router) { client in
            let served = try await client.execute(uri: "/v1/openapi.json", method: .get)
            #expect(served.status == .ok)
            #expect(served.text == OpenAPIDocument.json)
        }
    }

    /// A change that changes nothing (the console's form saved untouched, a PATCH sent again) writes nothing: the
    /// link keeps its updateTime and no link.updated event goes out.
    @Test func aPatchThatChangesNothingLeavesTheLinkAsItWas() async throws {
        let (store, key) = try await T.storeWithKey()
        try await T.application(store: store).test(.router) { client in
            let (_, code, encoded) = try await Self.mintShort(client, key: key)
            let before = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
            for body in [#"{"disabled": false}"#, #"{"longDynamicLink": "\#(before.longLink)"}"#, "{}"] {
                let response = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(body))
                #expect(response.status == .ok, "\(response.text)")
                #expect(try await store.link(domain: "https://go.pictlink.com", code: code) == before, "\(body)")
            }
            _ = try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: Self.body(#"{"fetchPreview": true}"#))
            #expect(try await store.link(domain: "https://go.pictlink.com", code: code)?.updatedAt != before.updatedAt)

            // An expiry with a fraction of a second, sent again, is the time already stored.
            for time in ["2050-06-15T12:34:56.7Z", "2027-03-03T03:03:03.9Z"] {
                let body = Self.body(#"{"expireTime": "\#(time)"}"#)
                #expect(try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: body).status == .ok)
                let set = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
                #expect(try await client.execute(uri: "/v1/links/\(encoded)?key=\(key)", method: .patch, body: body).status == .ok)
                // Compared by its update time: the card asked for above may be saved meanwhile, which is no edit.
                let again = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
                #expect(again.updatedAt == set.updatedAt && again.expiresAt == set.expiresAt, "\(time)")
            }
        }
    }

    /// A re-mint asking for the page's card, racing a PATCH of the link's destination, never changes the link once it
    /// is edited: the request then mints a link of its own. The order of the writes is read from their `link.updated`
    /// events in the outbox (written in each write's transaction): the card asked for on the moved link, after the move,
    /// is the race lost.
    @Test func aRemintRacingAnEditNeverChangesTheEditedLink() async throws {
        let (store, key) = try await T.storeWithKey()
        _ = try await store.insertWebhook(projectId: "pictlink", url: "https://hooks.example.com/order", events: ["link.updated"], secret: "s")
        try await T.application(store: store).test(.live) { client in
            let port = try #require(client.port)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: HTTPClient.Configuration(redirectConfiguration: .disallow))
            var failure: (any Error)?
            do {
                for round in 0..<40 {
                    let longLink = "https://go.pictlink.com/?link=https://pictlink.com/race\(round)"
                    let minted = try Self.decode(
                        CreateShortLinkResponse.self,
                        try await client.execute(uri: "/v1/shortLinks?key=\(key)", method: .post, body: Self.mintBody(longLink, option: "SHORT")))
                    func send(_ method: HTTPMethod, _ path: String, _ body: String) async throws -> UInt {
                        try await Self.send(method, "http://127.0.0.1:\(port)\(path)?key=\(key)", body, with: http)
                    }
                    async let edit = send(
                        .PATCH, "/v1/links/\(PercentEncoding.encodeQueryValue(minted.shortLink))", #"{"longDynamicLink": "\#(longLink)-moved"}"#)
                    async let remint = send(
                        .POST, "/v1/shortLinks", #"{"longDynamicLink": "\#(longLink)", "suffix": {"option": "SHORT"}, "fetchPreview": true}"#)
                    #expect(try await [edit, remint] == [200, 200], "round \(round)")
                    let changes = try await store.writer.read { db in
                        try String.fetchAll(db, sql: "SELECT payload FROM webhook_deliveries ORDER BY rowid").compactMap { payload in
                            let event = try JSONDecoder().decode(LinkEvent.self, from: Data(payload.utf8))
                            return event.data.shortLink == minted.shortLink ? event.data : nil
                        }
                    }
                    let moved = changes.firstIndex { $0.longDynamicLink.contains("moved") }
                    if let moved, changes[moved].fetchPreview != true {
                        #expect(!changes[moved...].contains { $0.fetchPreview == true }, "round \(round): the card was asked for on the moved link")
                    }
                }
            } catch {
                failure = error
            }
            try await http.shutdown()
            if let failure { throw failure }
        }
    }

    /// Sends a JSON body to `url` on a connection of `http`'s (requests at once overlap, as a router test's do not);
    /// the status.
    static func send(_ method: HTTPMethod, _ url: String, _ body: String, with http: HTTPClient) async throws -> UInt {
        var request = HTTPClientRequest(url: url)
        request.method = method
        request.headers.add(name: "Host", value: "go.pictlink.com")
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(string: body))
        let response = try await http.execute(request, timeout: .seconds(30))
        _ = try await response.body.collect(upTo: 1 << 20)
        return response.status.code
    }

    /// A `link.updated` event as the outbox holds it.
    struct LinkEvent: Decodable {
        var data: ManagedLink
    }

    /// PATCHes of different fields at once all take effect: a `disabled: true` answered 200 is never undone by a
    /// rename that read the link before it. Each round sends them on connections of their own, so they overlap.
    @Test func patchesAtOnceKeepEachOthersChanges() async throws {
        let (store, key) = try await T.storeWithKey()
        try await T.application(store: store).test(.live) { client in
            let port = try #require(client.port)
            var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
            configuration.connectionPool = .init(idleTimeout: .seconds(5), concurrentHTTP1ConnectionsPerHostSoftLimit: 32)
            let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
            var failure: (any Error)?
            do {
                for round in 0..<5 {
                    let (_, code, encoded) = try await Self.mintShort(client, key: key)
                    let uri = "http://127.0.0.1:\(port)/v1/links/\(encoded)?key=\(key)"
                    let bodies = [#"{"disabled": true}"#, #"{"maxClicks": 5}"#] + (0..<16).map { #"{"name": "renamed \#($0)"}"# }
                    let statuses = try await withThrowingTaskGroup(of: UInt.self) { group in
                        for body in bodies {
                            group.addTask { try await Self.send(.PATCH, uri, body, with: http) }
                        }
                        return try await group.reduce(into: []) { $0.append($1) }
                    }
                    #expect(statuses.allSatisfy { $0 == 200 }, "round \(round): \(statuses)")
                    let link = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
                    #expect(link.disabled && link.maxClicks == 5 && link.name?.hasPrefix("renamed ") == true, "round \(round): \(link)")
                }
            } catch {
                failure = error
            }
            try await http.shutdown()
            if let failure { throw failure }
        }
    }
}
