import Foundation
import RelinkTestSupport
import Testing

/// An app adds the Swift client as docs/integration-ios.md says (`clients/RelinkClient`, a package of its own): it builds,
/// and none of the server's packages is resolved or fetched (the repository's root manifest would fetch all 30).
@Suite("The client as an app adds it", .loadsTheMachine)
struct ClientPackageTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func anAppPackageBuildsAgainstTheClientAloneWithNoServerPackage() async throws {
        let app = FileManager.default.temporaryDirectory.appending(path: "relink-app-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: app) }
        try FileManager.default.createDirectory(at: app.appending(path: "Sources/App"), withIntermediateDirectories: true)
        let client = Self.repository.appending(path: "clients/RelinkClient").path
        try """
        // swift-tools-version:6.0
        import PackageDescription

        let package = Package(
            name: "App",
            dependencies: [.package(path: "\(client)")],
            targets: [.executableTarget(name: "App", dependencies: [.product(name: "RelinkClient", package: "RelinkClient")])]
        )
        """.write(to: app.appending(path: "Package.swift"), atomically: true, encoding: .utf8)
        try """
        import RelinkClient

        print(RelinkClientError.self)
        """.write(to: app.appending(path: "Sources/App/main.swift"), atomically: true, encoding: .utf8)

        let (status, text) = try await runToEnd("/usr/bin/env", ["swift", "build", "--package-path", app.path])
        #expect(status == 0, "\(text.suffix(2000))")
        let checkouts = (try? FileManager.default.contentsOfDirectory(atPath: app.appending(path: ".build/checkouts").path)) ?? []
        #expect(checkouts.isEmpty, "fetched \(checkouts)")
        #expect(!text.contains("Fetching") && !text.contains("Cloning"), "\(text.prefix(2000))")
    }
}
