import Foundation
import HummingbirdTesting
import Testing

@testable import relink

/// `relink webhooks` through a live server: add (the secret printed once), list, test, deliveries, remove. A
/// receiver on loopback is refused when added; one whose name has no address is refused when sent, which the
/// deliveries then say.
@Suite("relink webhooks")
struct WebhooksCommandTests {
    typealias E = EndToEndTests

    @Test func addsListsTestsShowsAndRemoves() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-webhooks-cli-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let key = try #require(try await E.run(["keys", "create", "--project", "pictlink", "--config", E.routes, "--db", database]).first)
        try await E.application(database: database).test(.live) { client in
            let server = ["--server", "http://127.0.0.1:\(try #require(client.port))", "--key", key]
            let secret = try #require(
                try await E.run(["webhooks", "add", "http://hooks.invalid:9/hook", "--events", "link.created,click"] + server).first)
            #expect(secret.hasPrefix("whsec_"))
            let listed = try await E.run(["webhooks", "list"] + server).joined(separator: "\n")
            #expect(listed.contains("http://hooks.invalid:9/hook") && listed.contains("click,link.created") && !listed.contains(secret))
            let id = try #require(listed.split(separator: "\n").dropFirst().first?.split(separator: " ").first.map(String.init))
            #expect(try await E.run(["webhooks", "test", id] + server).first?.hasPrefix("queued test delivery ") == true)
            // The receiver's name has no address (.invalid never has one): the delivery waits for its retry and says why.
            var shown = ""
            for _ in 0..<60 {
                shown = try await E.run(["webhooks", "deliveries", id] + server).joined(separator: "\n")
                if shown.contains("has no address") { break }
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(
                shown.contains("webhook.test") && shown.contains("PENDING") && shown.contains("hooks.invalid has no address"), "\(shown)"
            )
            let bad = await FirebaseMigrationTests.run(["webhooks", "add", "http://10.1.2.3/hook"] + server)
            #expect(bad.error?.message.contains("is private") == true, "\(String(describing: bad.error))")
            let loopback = await FirebaseMigrationTests.run(["webhooks", "add", "http://localhost:9/hook"] + server)
            #expect(loopback.error?.message.contains("is loopback") == true, "\(String(describing: loopback.error))")
            #expect(try await E.run(["webhooks", "remove", id] + server).first == "removed webhook \(id)")
            #expect(try await E.run(["webhooks", "list"] + server).first == "no webhooks")
        }
    }
}
