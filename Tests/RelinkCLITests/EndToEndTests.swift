import ArgumentParser
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import RelinkCore
import RelinkServer
import RelinkStore
import Testing

@testable import relink

/// The whole path a user takes: a key from the CLI, a live server on port 0, minting with the CLI, clicks from
/// four kinds of client, the counts read back, and all of it still there after a restart.
@Suite("End to end")
struct EndToEndTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../..").standardizedFileURL
    static let routes = root.appending(path: "routes.json").path

    /// Runs a CLI command in-process and returns what it printed on stdout.
    static func run(_ arguments: [String]) async throws -> [String] {
        let capture = Console.Capture()
        try await Console.$capture.withValue(capture) {
            var command = try Relink.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        }
        return capture.output
    }

    static func application(database: String) throws -> some ApplicationProtocol {
        let configuration = try RelinkConfiguration(json: Data(contentsOf: URL(fileURLWithPath: routes)))
        return try buildApplication(
            configuration: ServerConfiguration(
                host: "127.0.0.1", port: 0, relink: configuration, logLevel: .error, store: try SQLiteStore(path: database)))
    }

    static let agents: [(name: String, userAgent: String, expected: @Sendable (TestResponse) -> Bool)] = [
        (
            "iPhone",
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1",
            { $0.status == .found && $0.headers[.location] == "https://apps.apple.com/app/id000000001" }
        ),
        (
            "Android", "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            {
                $0.status == .found
                    && ($0.headers[.location] ?? "").replacing(/relink_click%3D[A-Za-z0-9]{22}%26/, with: "")
                        == "https://play.google.com/store/apps/details?id=jp.furyu.pictlink.android&referrer=utm_source%3Dnewsletter"
            }
        ),
        (
            "desktop", "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
            { $0.status == .found && $0.headers[.location] == "https://pictlink.com/desktop" }
        ),
        (
            "crawler", "facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)",
            { $0.status == .ok && String(buffer: $0.body).contains(#"<meta property="og:title" content="Spring sale">"#) }
        ),
    ]

    @Test func mintClickCountAndRestart() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "relink-e2e-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appending(path: "relink.sqlite").path

        let key = try #require(try await Self.run(["keys", "create", "--project", "pictlink", "--config", Self.routes, "--db", database]).first)
        #expect(key.hasPrefix("rl_"))
        let mint = [
            "mint", "--domain", "https://go.pictlink.com", "--link", "https://pictlink.com/spring", "--apn", "jp.furyu.pictlink.android",
            "--ibi", "jp.furyu.pictlink.ios", "--isi", "000000001", "--efr", "1", "--ofl", "https://pictlink.com/desktop",
            "--st", "Spring sale", "--utm-source", "newsletter", "--suffix", "short", "--key", key,
        ]
        let clicks = [2, 3, 1, 4]
        let shortLink = try await Self.application(database: database).test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            let shortLink = try #require(try await Self.run(mint + ["--server", server]).first)
            #expect(shortLink.hasPrefix("https://go.pictlink.com/"))
            for (agent, times) in zip(Self.agents, clicks) {
                for _ in 0..<times {
                    // The live client sends its own `Host: localhost`: the link's host goes in the target (RFC 9112's
                    // absolute form), which wins over it.
                    let response = try await client.execute(uri: shortLink, method: .get, headers: [.userAgent: agent.userAgent])
                    #expect(agent.expected(response), "\(agent.name): \(response.status) \(response.headers[.location] ?? "")")
                }
            }
            let stats = try await Self.run(["stats", shortLink, "--days", "1", "--json", "--crawlers", "--server", server, "--key", key])
            #expect(Self.counts(stats) == Self.expectedCounts)
            return shortLink
        }
        // Restarted on the same database: the key, the link and the counts are all still there.
        try await Self.application(database: database).test(.live) { client in
            let server = "http://127.0.0.1:\(try #require(client.port))"
            let stats = try await Self.run(["stats", shortLink, "--days", "1", "--json", "--crawlers", "--server", server, "--key", key])
            #expect(Self.counts(stats) == Self.expectedCounts)
            #expect(try await Self.run(mint + ["--server", server]).first == shortLink)
            let listed = try await Self.run(["links", "list", "--server", server, "--key", key])
            #expect(listed.joined().contains(shortLink))
            // A name given when minting shows where names show.
            let named = try #require(
                try await Self.run([
                    "mint", "--domain", "https://go.pictlink.com", "--link", "https://pictlink.com/named", "--name", "Autumn <mail>", "--key",
                    key, "--server", server,
                ]).first)
            let shown = try await Self.run(["links", "show", named, "--server", server, "--key", key])
            #expect(
                shown.joined().contains(#""name" : "Autumn <mail>""#) || shown.joined().contains(#""name":"Autumn <mail>""#)
                    || shown.joined().contains(#""name": "Autumn <mail>""#), "\(shown)")
            let response = try await client.execute(uri: shortLink, method: .get, headers: [.userAgent: Self.agents[2].userAgent])
            #expect(response.headers[.location] == "https://pictlink.com/desktop")
        }
    }

    /// 2 iPhone, 3 Android, 1 desktop and 4 crawler requests: every human request is a CLICK, the redirected
    /// ones a REDIRECT too (efr=1 sends the iPhone straight to the App Store), crawlers only as crawler visits.
    static let expectedCounts = [
        "IOS CLICK": "2", "IOS REDIRECT": "2", "ANDROID CLICK": "3", "ANDROID REDIRECT": "3", "DESKTOP CLICK": "1",
        "DESKTOP REDIRECT": "1", "CRAWLER CLICK": "4",
    ]

    static func counts(_ output: [String]) -> [String: String] {
        guard let stats = try? JSONDecoder().decode(LinkStatsResponse.self, from: Data(output.joined(separator: "\n").utf8)) else { return [:] }
        return Dictionary(uniqueKeysWithValues: stats.linkEventStats.map { ("\($0.platform.rawValue) \($0.event.rawValue)", $0.count) })
    }
}
