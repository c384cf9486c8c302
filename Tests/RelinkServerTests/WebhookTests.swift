import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import NIOCore
import RelinkCore
import ServiceLifecycle
import Testing

@testable import RelinkServer
@testable import RelinkStore

/// Webhooks: signed deliveries of link, click and install events to a receiver on loopback, retries, the outbox
/// surviving a restart and a crashed sender's lease, and exactly-once delivery from two instances on PostgreSQL.
@Suite("Webhooks", .serialized)
struct WebhookTests {
    typealias T = TestSupport

    /// A receiver that answers `failuresFirst` requests with 500, then 200, and keeps what it got.
    final class Receiver: Sendable {
        struct Received: Sendable {
            var signature: String
            var delivery: String
            var event: String
            var body: String
        }

        let received = NIOLockedValueBox<[Received]>([])
        let failuresLeft: NIOLockedValueBox<Int>

        init(failuresFirst: Int = 0) { failuresLeft = NIOLockedValueBox(failuresFirst) }

        func application() -> some ApplicationProtocol {
            let router = Router()
            router.post("hook") { request, _ -> Response in
                let body = try await request.body.collect(upTo: 1 << 20)
                let fail = self.failuresLeft.withLockedValue { left in
                    defer { left = max(0, left - 1) }
                    return left > 0
                }
                self.received.withLockedValue {
                    $0.append(
                        Received(
                            signature: request.headers[HTTPField.Name("Relink-Signature")!] ?? "",
                            delivery: request.headers[HTTPField.Name("Relink-Delivery")!] ?? "",
                            event: request.headers[HTTPField.Name("Relink-Event")!] ?? "", body: String(buffer: body)))
                }
                return Response(status: fail ? .internalServerError : .ok)
            }
            return Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: Logger(label: "receiver"))
        }

        /// What arrived once there are `count` requests (of `event`), or `count` distinct deliveries when
        /// `distinct` (the first request of each: delivery is at least once, so a loaded sender may repeat one).
        func wait(for count: Int, event: String? = nil, distinct: Bool = false, timeout: Duration = .seconds(60)) async throws -> [Received] {
            let deadline = ContinuousClock.now + timeout
            func matching() -> [Received] {
                let all = received.withLockedValue { $0 }.filter { event == nil || $0.event == event }
                guard distinct else { return all }
                var seen: Set<String> = []
                return all.filter { seen.insert($0.delivery).inserted }
            }
            while ContinuousClock.now < deadline {
                let found = matching()
                if found.count >= count { return found }
                try await Task.sleep(for: .milliseconds(50))
            }
            return matching()
        }
    }

    static func server(_ store: any RelinkStore, interval: Duration = .milliseconds(100)) -> ServerConfiguration {
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: T.configuration, forwardedHeaders: T.trustingTestClient, logLevel: .error, store: store)
        server.fetchPolicy = OutboundAddressPolicy(allowed: [IPNetwork("127.0.0.1/32")!])
        server.webhookInterval = interval
        server.webhookRetryBase = .milliseconds(200)
        // Longer than a send may take, so a slow receiver on a loaded machine is not sent the same delivery again,
        // and a loopback answer is never taken for a timeout.
        server.webhookLease = .seconds(30)
        server.webhookTimeout = .seconds(20)
        return server
    }

    static func addWebhook(_ client: some TestClientProtocol, key: String, url: String, events: [String]? = nil) async throws -> WebhookInfo {
        let response = try await client.execute(
            uri: "/v1/webhooks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try JSONEncoder().encode(CreateWebhookRequest(url: url, events: events))))
        #expect(response.status == .ok, "\(response.text)")
        return try JSONDecoder().decode(WebhookInfo.self, from: response.data)
    }

    /// A webhook's deliveries once `done` holds for them (or after 60 s).
    static func deliveries(
        _ client: some TestClientProtocol, key: String, webhook: String, until done: ([WebhookDeliveryInfo]) -> Bool
    ) async throws -> WebhookDeliveriesResponse {
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            let answer = try JSONDecoder().decode(
                WebhookDeliveriesResponse.self,
                from: try await client.execute(uri: "/v1/webhooks/\(webhook)/deliveries?key=\(key)", method: .get).data)
            if done(answer.deliveries) || ContinuousClock.now > deadline { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Checks a signature as a receiver would: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<body>">`.
    static func verify(_ received: Receiver.Received, secret: String) -> Bool {
        let parts = Dictionary(
            uniqueKeysWithValues: received.signature.split(separator: ",").compactMap { part -> (String, String)? in
                let pair = part.split(separator: "=", maxSplits: 1)
                return pair.count == 2 ? (String(pair[0]), String(pair[1])) : nil
            })
        guard let t = parts["t"], let v1 = parts["v1"] else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Data("\(t).\(received.body)".utf8), using: SymmetricKey(data: Data(secret.utf8)))
        return Hex.string(mac) == v1
    }

    /// A delivery that ends has its slot leased again at once, not a round later: with rounds an hour apart, one
    /// webhook's 12 deliveries (two at a time) all go out, each finished one starting the next.
    @Test func aFinishedDeliveryStartsTheNextWithoutWaitingForTheRound() async throws {
        let receiver = Receiver()
        try await receiver.application().test(.live) { receiverClient in
            let store = try SQLiteStore()
            var logger = Logger(label: "relink.test")
            logger.logLevel = .error
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let webhook = try await store.insertWebhook(projectId: "pictlink", url: hook, events: ["link.created"], secret: "whsec_test")
            let now = Date()
            try await store.enqueueDeliveries(
                (0..<12).map {
                    WebhookDelivery(
                        id: "d\($0)", webhookId: webhook.id, event: "link.created", payload: #"{"n":\#($0)}"#, createdAt: now, nextAttemptAt: now)
                }, maximumPending: 100)
            let service = WebhookService(
                store: store, fetcher: Self.server(store).webhookFetcher, interval: .seconds(3600), lease: .seconds(30), logger: logger)
            let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
            let task = Task { try await group.run() }
            let received = try await receiver.wait(for: 12, timeout: .seconds(60))
            await group.triggerGracefulShutdown()
            try await task.value
            #expect(Set(received.map(\.delivery)).count == 12)
        }
    }

    /// A receiver that fails at once gets a line per 10 seconds, with the failures left out since; each webhook its
    /// own, and the table is bounded.
    @Test func failedDeliveriesAreLoggedOncePerIntervalPerWebhook() {
        let log = ThrottledLog<Int64>(interval: .seconds(10), capacity: 3)
        let start = ContinuousClock.now
        #expect(log.shouldLog(1, now: start) == 0)
        for offset in 1...5 { #expect(log.shouldLog(1, now: start + .seconds(offset)) == nil) }
        #expect(log.shouldLog(2, now: start + .seconds(1)) == 0)
        #expect(log.shouldLog(1, now: start + .seconds(11)) == 5)
        #expect(log.shouldLog(1, now: start + .seconds(12)) == nil)
        // Past its capacity it starts again from empty: a line too many, never unbounded.
        #expect(log.shouldLog(3, now: start + .seconds(12)) == 0)
        #expect(log.shouldLog(4, now: start + .seconds(12)) == 0)
        #expect(log.shouldLog(1, now: start + .seconds(13)) == 0)
        #expect(log.line(1, "failed", now: start + .seconds(14)) == nil)
        #expect(log.line(1, "failed", now: start + .seconds(24)) == "failed (and 1 more in the last 10 s)")
    }

    @Test func signedEventsOfLinksClicksAndInstalls() async throws {
        let receiver = Receiver()
        try await receiver.application().test(.live) { receiverClient in
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let (store, key) = try await T.storeWithKey()
            try await buildApplication(configuration: Self.server(store)).test(.router) { client in
                let webhook = try await Self.addWebhook(client, key: key, url: hook)
                let secret = try #require(webhook.secret)
                #expect(secret.hasPrefix("whsec_"))
                // The secret is shown once.
                let listed = try JSONDecoder().decode(
                    WebhookListResponse.self, from: try await client.execute(uri: "/v1/webhooks?key=\(key)", method: .get).data)
                #expect(listed.webhooks.map(\.secret) == [nil])

                let minted = try await T.mint(
                    "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fhooked&apn=jp.furyu.pictlink.android", key: key, with: client)
                let path = String(minted.shortLink.dropFirst("https://go.pictlink.com".count))
                let click = try await client.execute(
                    uri: path, method: .get, headers: T.headers(agent: T.Agent.android) + [HTTPField.Name("X-Forwarded-For")!: "203.0.113.9"])
                let location = try #require(click.headers[.location])
                let referrer = try #require(URLComponents(string: location)?.queryItems?.first { $0.name == "referrer" }?.value)
                let claim = try await client.execute(
                    uri: "/v1/installAttribution", method: .post, headers: [HTTPField.Name("X-Forwarded-For")!: "198.51.100.4"],
                    body: ByteBuffer(
                        string:
                            #"{"platform": "ANDROID", "bundleId": "jp.furyu.pictlink.android", "installReferrer": "\#(referrer)", "installId": "w-1"}"#
                    ))
                // Said here, if it fails, rather than as two events missing below.
                #expect(claim.status == .ok, "\(claim.status) \(String(buffer: claim.body))")

                let all = try await receiver.wait(for: 4, distinct: true)
                #expect(Set(all.map(\.event)) == ["link.created", "click", "install.claimed", "app.first_open"], "\(all.map(\.event))")
                for received in all {
                    #expect(Self.verify(received, secret: secret), "\(received.event)")
                    let body = try #require(try JSONSerialization.jsonObject(with: Data(received.body.utf8)) as? [String: Any])
                    #expect(body["id"] as? String == received.delivery)
                    #expect(body["type"] as? String == received.event)
                    #expect(body["project"] as? String == "pictlink")
                }
                let clickEvent = try #require(all.first { $0.event == "click" })
                #expect(clickEvent.body.contains(#""shortLink":"\#(minted.shortLink)""#))
                #expect(!clickEvent.body.contains("203.0.113.9"))
                // A tampered body fails the check.
                var tampered = clickEvent
                tampered.body = tampered.body.replacingOccurrences(of: "ANDROID", with: "IOS")
                #expect(!Self.verify(tampered, secret: secret))

                // Recent deliveries with their status (recorded just after the receiver answered).
                let deliveries = try await Self.deliveries(client, key: key, webhook: webhook.id) {
                    $0.count == 4 && $0.allSatisfy { $0.status == "DELIVERED" }
                }
                #expect(deliveries.deliveries.count == 4)
                #expect(deliveries.deliveries.allSatisfy { $0.status == "DELIVERED" && $0.lastStatus == 200 })
            }
        }
    }

    /// A PATCH's `link.updated` event is in the outbox when its answer is: it shows the link as saved (its new name,
    /// the answer's `updateTime`), and a PATCH that changes nothing sends none.
    @Test func aLinkUpdatedEventShowsTheLinkAsSaved() async throws {
        let receiver = Receiver()
        try await receiver.application().test(.live) { receiverClient in
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let (store, key) = try await T.storeWithKey()
            try await buildApplication(configuration: Self.server(store)).test(.router) { client in
                let webhook = try await Self.addWebhook(client, key: key, url: hook, events: ["link.updated"])
                let minted = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fedited", key: key, with: client)
                func patch(_ body: String) async throws -> ManagedLink {
                    let response = try await client.execute(
                        uri: "/v1/links/\(PercentEncoding.encodeQueryValue(minted.shortLink))?key=\(key)", method: .patch,
                        headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                    #expect(response.status == .ok, "\(response.text)")
                    return try JSONDecoder().decode(ManagedLink.self, from: response.data)
                }
                let saved = try await patch(#"{"name": "spring"}"#)
                _ = try await patch(#"{"name": "spring"}"#)
                let outbox = try await store.deliveries(webhookId: try #require(Int64(webhook.id)), limit: 10)
                #expect(outbox.map(\.event) == ["link.updated"])

                let received = try #require(try await receiver.wait(for: 1, event: "link.updated").first)
                let body = try #require(try JSONSerialization.jsonObject(with: Data(received.body.utf8)) as? [String: Any])
                let data = try #require(body["data"] as? [String: Any])
                #expect(data["name"] as? String == "spring")
                #expect(data["updateTime"] as? String == saved.updateTime)
                #expect(data["shortLink"] as? String == minted.shortLink)
            }
        }
    }

    /// `DELETE /v1/webhooks/{id}` answers at once, whatever the webhook's history: the webhook is gone from the list
    /// and from the sends, and the server deletes its deliveries right after, not at the next purge.
    @Test func aRemovedWebhooksDeliveriesAreDeletedRightAfter() async throws {
        let (store, key) = try await T.storeWithKey()
        try await buildApplication(configuration: Self.server(store)).test(.router) { client in
            let webhook = try await Self.addWebhook(client, key: key, url: "https://hooks.example.com/removed", events: ["click"])
            let id = try #require(Int64(webhook.id))
            let now = Date()
            try await store.enqueueDeliveries(
                (0..<12_000).map {
                    WebhookDelivery(id: "r\($0)", webhookId: id, event: "click", payload: "{}", createdAt: now, nextAttemptAt: now + 3600)
                }, maximumPending: 100_000)
            let removed = try await client.execute(uri: "/v1/webhooks/\(webhook.id)?key=\(key)", method: .delete)
            #expect(removed.status == .ok, "\(removed.text)")
            let listed = try JSONDecoder().decode(
                WebhookListResponse.self, from: try await client.execute(uri: "/v1/webhooks?key=\(key)", method: .get).data)
            #expect(listed.webhooks.isEmpty)
            let again = try await client.execute(uri: "/v1/webhooks/\(webhook.id)?key=\(key)", method: .delete)
            #expect(again.status == .notFound)

            let deadline = ContinuousClock.now + .seconds(60)
            while try await !store.deliveries(webhookId: id, limit: 1).isEmpty, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(try await store.deliveries(webhookId: id, limit: 1).isEmpty)
        }
    }

    @Test func failuresAreRetriedAndPrivateTargetsRefused() async throws {
        let receiver = Receiver(failuresFirst: 2)
        try await receiver.application().test(.live) { receiverClient in
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let (store, key) = try await T.storeWithKey()
            try await buildApplication(configuration: Self.server(store)).test(.router) { client in
                let webhook = try await Self.addWebhook(client, key: key, url: hook, events: ["link.created"])
                let test = try await client.execute(uri: "/v1/webhooks/\(webhook.id)/test?key=\(key)", method: .post)
                #expect(test.status == .ok)
                let attempts = try await receiver.wait(for: 3)
                #expect(attempts.count == 3)
                #expect(Set(attempts.map(\.delivery)).count == 1)  // the same delivery, three times
                let deliveries = try await Self.deliveries(client, key: key, webhook: webhook.id) { $0.first?.status == "DELIVERED" }
                #expect(deliveries.deliveries.first?.status == "DELIVERED")
                #expect(deliveries.deliveries.first?.attempts == 3)

                // Refused at once: a private literal address, an unknown event, a bad URL.
                for body in [
                    #"{"url": "http://10.0.0.1/hook"}"#, #"{"url": "http://169.254.169.254/"}"#, #"{"url": "\#(hook)", "events": ["nope"]}"#,
                    #"{"url": "ftp://example.com/"}"#, #"{"url": "http://user:pw@example.com/hook"}"#,
                    #"{"url": "http://exa\u202emple.com/"}"#,
                ] {
                    let refused = try await client.execute(
                        uri: "/v1/webhooks?key=\(key)", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
                    #expect(refused.status == .badRequest, "\(body): \(refused.text)")
                }
            }
        }
        // A name that resolves to a private address is refused when sending, and retried (then given up).
        #expect(WebhookService.retryTime(after: 1, createdAt: Date(), now: Date()) != nil)
        #expect(WebhookService.retryTime(after: 30, createdAt: Date() - 86_000, now: Date()) == nil)
    }

    @Test func theOutboxSurvivesARestartAndACrashedSendersLease() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-webhooks-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "relink.sqlite").path
        let receiver = Receiver()
        try await receiver.application().test(.live) { receiverClient in
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let store = try SQLiteStore(path: path)
            let (key, _) = try await APIKeys.create(projectId: "pictlink", name: "t", in: store)
            // An instance that never gets round to sending (an hour between rounds), stopped after the events.
            try await buildApplication(configuration: Self.server(store, interval: .seconds(3600))).test(.router) { client in
                _ = try await Self.addWebhook(client, key: key, url: hook, events: ["link.created"])
                for index in 0..<5 {
                    _ = try await T.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fr\(index)", key: key, with: client)
                }
            }
            #expect(receiver.received.withLockedValue { $0 }.isEmpty)
            // A sender that leased one and crashed before recording anything.
            let crashed = try await store.leaseDeliveries(now: Date(), limit: 1, lease: .seconds(1))
            #expect(crashed.count == 1)

            // The next start delivers all five, the crashed one once its lease has run out.
            try await buildApplication(configuration: Self.server(try SQLiteStore(path: path))).test(.router) { _ in
                let delivered = try await receiver.wait(for: 5, distinct: true)
                #expect(Set(delivered.map(\.delivery)).count == 5)
                #expect(delivered.contains { $0.delivery == crashed[0].0.id })
            }
        }
    }

    @Test(.enabled(if: ProcessInfo.processInfo.environment["RELINK_TEST_DATABASE_URL"].map { !$0.isEmpty } ?? false))
    func twoInstancesDeliverEachEventOnce() async throws {
        let receiver = Receiver()
        try await receiver.application().test(.live) { receiverClient in
            let hook = "http://127.0.0.1:\(try #require(receiverClient.port))/hook"
            let schema = "t_hooks_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(10)
            var logger = Logger(label: "relink.test")
            logger.logLevel = .error
            let url = try MultiInstanceTests.url(schema: String(schema))
            let first = try await PostgresStore.connect(url, logger: logger)
            let second = try await PostgresStore.connect(url, logger: logger)
            let webhook = try await first.insertWebhook(projectId: "pictlink", url: hook, events: ["link.created"], secret: "whsec_test")
            let now = Date()
            let deliveries = (0..<300).map { index in
                WebhookDelivery(
                    id: "d\(index)", webhookId: webhook.id, event: "link.created", payload: #"{"n":\#(index)}"#, createdAt: now, nextAttemptAt: now)
            }
            try await first.enqueueDeliveries(deliveries, maximumPending: WebhookService.maximumPendingPerWebhook)
            // Two senders at once, on their own connection pools, leasing from one outbox.
            let services = [first, second].map { store in
                WebhookService(
                    store: store, fetcher: Self.server(store).webhookFetcher, interval: .milliseconds(20), lease: .seconds(30),
                    retryBase: .milliseconds(200), logger: logger)
            }
            let group = ServiceGroup(configuration: .init(services: services, gracefulShutdownSignals: [], logger: logger))
            let task = Task { try await group.run() }
            let received = try await receiver.wait(for: 300, timeout: .seconds(60))
            await group.triggerGracefulShutdown()
            try await task.value
            let ids = received.map(\.delivery)
            #expect(ids.count == 300, "\(ids.count) deliveries")
            #expect(Set(ids).count == 300)
            first.close()
            second.close()
        }
    }
}

extension ServerConfiguration {
    /// The fetcher the application builds for webhooks from this configuration.
    var webhookFetcher: SafeFetcher {
        var fetcher = SafeFetcher(policy: fetchPolicy, resolver: hostResolver)
        fetcher.timeout = webhookTimeout
        return fetcher
    }
}
