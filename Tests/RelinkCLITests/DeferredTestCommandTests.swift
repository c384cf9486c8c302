import ArgumentParser
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkClient
import RelinkCore
import RelinkTestSupport
import Testing

@testable import relink

/// `relink deferred test`: a test link minted to the project's apps, and the watch that follows it until the claim.
@Suite("relink deferred test")
struct DeferredTestCommandTests {
    typealias E = EndToEndTests

    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"

    /// A live server on a new database, with a key for pictlink: `body` gets the client, the server's URL and the key.
    static func withServer(_ body: @Sendable (any TestClientProtocol, String, String) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-deferred-test-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path
        let key = try #require(try await E.run(["keys", "create", "--project", "pictlink", "--config", E.routes, "--db", database]).first)
        try await E.application(database: database).test(.live) { client in
            try await body(client, "http://127.0.0.1:\(try #require(client.port))", key)
        }
    }

    /// Into a pipe, each line comes as it is printed: the link to open is there while the command still waits.
    @Test func printsTheLinkToOpenAtOnceIntoAPipe() async throws {
        let executable = try #require(CrashSafetyTests.executable, "the relink executable is not built beside the tests")
        try await Self.withServer { _, server, key in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = [
                "deferred", "test", "--project", "pictlink", "--config", E.routes, "--server", server, "--key", key, "--timeout", "20",
            ]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            // Read on a thread of its own: a blocking read on the concurrency pool would hold one of its few threads,
            // which the server answering this very command needs.
            let reader = output.fileHandleForReading
            let received: Data = try await offThePool {
                var received = Data()
                while !String(decoding: received, as: UTF8.self).contains("https://") {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    received += chunk
                }
                return received
            }
            #expect(
                String(decoding: received, as: UTF8.self).contains("https://go.pictlink.com/"),
                "nothing read: \(String(decoding: received, as: UTF8.self))")
            #expect(process.isRunning, "the command had already ended: its output came only at its exit")
        }
    }

    @Test func mintsAndWatchesUntilTheInstallClaimsTheClick() async throws {
        try await Self.withServer { client, server, key in
            let capture = Console.Capture()
            let command = Task {
                try await Console.$capture.withValue(capture) {
                    var command = try Relink.parseAsRoot([
                        "deferred", "test", "--project", "pictlink", "--config", E.routes, "--server", server, "--key", key, "--link",
                        "https://pictlink.com/invite/7", "--timeout", "90", "--interval", "0.1",
                    ])
                    if var asyncCommand = command as? any AsyncParsableCommand { try await asyncCommand.run() } else { try command.run() }
                }
                return capture.output
            }
            // The phone: it opens the test link once the command shows it (a person could not click it sooner)...
            var shown: String?
            let showing = ContinuousClock.now + .seconds(60)
            while shown == nil && ContinuousClock.now < showing {
                shown = capture.output.first { $0.hasPrefix("  https://") }.map { String($0.dropFirst(2)) }
                if shown == nil { try await Task.sleep(for: .milliseconds(50)) }
            }
            let api = RelinkClient(server: try #require(URL(string: server)), apiKey: key)
            let link = try #require(try await api.links().links.first { $0.shortLink == shown })
            #expect(link.longDynamicLink.contains("ibi=") && link.longDynamicLink.contains("isi=000000001") && link.longDynamicLink.contains("apn="))
            // In absolute form: the live client sends its own `Host: localhost`.
            let page = try await client.execute(uri: link.shortLink, method: .get, headers: [.userAgent: Self.iPhone, .acceptLanguage: "en"])
            #expect(page.status == .ok)
            // ...and the app, installed from the store, claims it on its first launch.
            let claim = try await client.execute(
                uri: "/v1/installAttribution", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    string:
                        #"{"bundleId": "jp.furyu.pictlink.ios", "iosVersion": "17.2", "installId": "t-1", "device": {"deviceModelName": "iPhone15,2", "languageCode": "en-US"}}"#
                ))
            let answer = try JSONDecoder().decode(InstallAttributionResponse.self, from: Data(String(buffer: claim.body).utf8))
            #expect(answer.deepLink == "https://pictlink.com/invite/7")

            let output = try await command.value
            #expect(output.contains { $0.hasPrefix("  https://go.pictlink.com/") })
            #expect(output.contains { $0.contains("click from IOS (iphone, 17.2, en), kept for the install") })
            #expect(output.contains { $0.contains("claimed as \(answer.attributionConfidence?.rawValue ?? "?")") })
            #expect(output.contains { $0.contains(#"{"debug": true}"#) })

            // The same test again mints the same link: the earlier click and claim are the baseline, not a pass.
            await #expect {
                _ = try await E.run([
                    "deferred", "test", "--project", "pictlink", "--config", E.routes, "--server", server, "--key", key, "--link",
                    "https://pictlink.com/invite/7", "--timeout", "1", "--interval", "0.1",
                ])
            } throws: { error in
                (error as? CLIError)?.message.hasPrefix("no click within 1 s") == true
            }
        }
    }

    @Test func givesUpAfterTheTimeoutSayingWhy() async throws {
        try await Self.withServer { client, server, key in
            let common = ["--config", E.routes, "--server", server, "--key", key, "--timeout", "1", "--interval", "0.1"]
            await #expect {
                _ = try await E.run(["deferred", "test", "--project", "pictlink"] + common)
            } throws: { error in
                (error as? CLIError).map { $0.exitCode == 1 && $0.message.hasPrefix("no click within 1 s") } ?? false
            }
            await #expect {
                _ = try await E.run(["deferred", "test", "--project", "nope"] + common)
            } throws: { error in
                (error as? CLIError)?.message.contains("no project 'nope'") == true
            }
            await #expect {
                _ = try await E.run(["deferred", "test", "--project", "pictlink", "--domain", "https://example.com"] + common)
            } throws: { error in
                (error as? CLIError)?.exitCode == CLIError.usageExitCode
            }
            // A domain with a path, written with or without its trailing slash.
            await #expect {
                _ = try await E.run(["deferred", "test", "--project", "pictlink", "--domain", "https://pictlink.com/links/"] + common)
            } throws: { error in
                (error as? CLIError)?.message.hasPrefix("no click within 1 s") == true
            }
        }
    }

    @Test func theWatchPrintsEachClickAndClaimOnce() {
        var watch = DeferredTestWatch()
        let click = DeferredClicksResponse.Click(
            ref: "a1b2c3d4e5f6", platform: .android, clickedAt: "2026-11-24T10:00:00Z", osVersion: "14", device: "pixel 7", languages: ["en"],
            screen: nil,
            timeZone: nil, claimedAt: nil, confidence: nil)
        #expect(watch.update(.init(clicks: [click])) == ["2026-11-24T10:00:00Z  click from ANDROID (pixel 7, 14, en), kept for the install"])
        #expect(watch.update(.init(clicks: [click])).isEmpty)
        #expect(!watch.claimed)
        #expect(watch.timeoutMessage(seconds: 9).hasPrefix("the click was kept but no install claimed it within 9 s"))
        var weak = click
        weak.claimedAt = "2026-11-24T10:01:05Z"
        weak.confidence = .weak
        let lines = watch.update(.init(clicks: [weak]))
        #expect(
            lines == [
                "2026-11-24T10:01:05Z  claimed as WEAK, 65 s after the click: a guess; a surer claim may still take it (apps should not trust WEAK with anything personal)."
            ])
        #expect(watch.claimed)
        // Taken back by a surer claim: said again.
        var unique = weak
        unique.confidence = .unique
        #expect(watch.update(.init(clicks: [unique])).first?.contains("claimed as UNIQUE") == true)
        #expect(DeferredTestWatch().timeoutMessage(seconds: 5).hasPrefix("no click within 5 s"))
        // Clicks there before the test are never reported, claimed or not.
        var fresh = DeferredTestWatch()
        #expect(fresh.ignore(.init(clicks: [weak])) == 1)
        #expect(fresh.update(.init(clicks: [unique, weak])).isEmpty)
        #expect(!fresh.claimed)
        // Nor when the preview page's beacon adds a screen to an earlier click after the test began.
        var measured = click
        measured.screen = "390x844"
        var beforeTest = DeferredTestWatch()
        #expect(beforeTest.ignore(.init(clicks: [click])) == 1)
        #expect(beforeTest.update(.init(clicks: [measured])).isEmpty)
    }
}
