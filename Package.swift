// swift-tools-version:6.2
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// The server's and the store's: an async function that is not isolated runs on its caller's executor (SE-0461), so a
/// click's chain of awaits (and a cache miss's read of SQLite) stays on its event loop instead of hopping executors at
/// each call.
let serverSwiftSettings = swiftSettings + [.enableUpcomingFeature("NonisolatedNonsendingByDefault")]

let package = Package(
    name: "relink",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .executable(name: "relink", targets: ["relink"]),
        .library(name: "RelinkAPI", targets: ["RelinkAPI"]),
        .library(name: "RelinkCore", targets: ["RelinkCore"]),
        .library(name: "RelinkClient", targets: ["RelinkClient"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Hummingbird's request and response types, imported directly (`HTTPTypes`) by server code and tests.
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // /metrics: families made on swift-prometheus' registry, with their help text, in Prometheus' text format.
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The HTTP request parts Hummingbird's channel passes (`NIOHTTPTypes`), for the request-timeout handler.
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Lock-free request counters (already built for Hummingbird and SwiftNIO).
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        // `relink import firebase` streams FDL's CSV export.
        .package(url: "https://github.com/yaslab/CSV.swift", from: "2.5.2"),
        // The console's sessions (`SessionStorage`, kept in Relink's own database).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.5.0"),
    ],
    targets: [
        // The REST API's messages and the values they carry (link parameters, warnings, platforms, rules, previews):
        // what the server and every client share. Foundation only.
        .target(name: "RelinkAPI", swiftSettings: swiftSettings),
        // Pure domain logic: Foundation only, no I/O.
        .target(name: "RelinkCore", dependencies: ["RelinkAPI"], swiftSettings: swiftSettings),
        // libxml2 (Debian's libxml2-dev, found through pkg-config); .ci/run installs it when missing.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // libmaxminddb's types only: the library is loaded at run time (`relink serve --geoip`), never linked.
        .systemLibrary(name: "CMaxMindDB"),
        // libqrencode's and libpng's types only: loaded at run time when the console draws a QR code, never linked.
        .systemLibrary(name: "CQREncode"),
        .systemLibrary(name: "CLibPNG"),
        // sqlite3_config (variadic, so not callable from Swift) through an inline C function; the SQLite GRDB links.
        .systemLibrary(name: "CSQLiteConfig"),
        .target(
            name: "RelinkStore",
            dependencies: [
                "RelinkCore",
                .product(name: "GRDB", package: "GRDB.swift"),
                // SQLite's C API, for a write's own busy timeout.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                // The event loop a link lookup was asked on, where its answer goes back.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
                // Long links of pending clicks are kept once, under their SHA-256; a long schema's NOTIFY channel is
                // named by its digest.
                .product(name: "Crypto", package: "swift-crypto"),
                // The store's lifetime is one of the application's services.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: serverSwiftSettings
        ),
        .target(
            name: "RelinkServer",
            dependencies: [
                "RelinkCore", "RelinkStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                // HTTP1Channel's settings: timeouts and channel handlers of both listeners.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                // Hummingbird's HTTP/1 pipeline, rebuilt with the lean path for clicks (`RelinkHTTP1Channel`).
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "Atomics", package: "swift-atomics"),
                // HTML read as browsers read it (`HTMLDocument`), and pages fetched for link previews and webhooks.
                "CLibXML2", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // The system resolver, on NIO's blocking thread pool.
                .product(name: "NIOPosix", package: "swift-nio"),
                "CMaxMindDB", "CQREncode", "CLibPNG",
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
            ],
            // The OpenAPI document is compiled in (the binary ships alone) by the plugin, not copied as a resource.
            exclude: ["API/openapi.json"],
            swiftSettings: serverSwiftSettings,
            plugins: ["EmbedOpenAPIDocument"]
        ),
        // What only the CLI does, apart from the server it runs: `relink doctor` (entitlements, AndroidManifest.xml,
        // deployments), `relink import firebase` and `relink verify`.
        .target(
            name: "RelinkTools",
            dependencies: [
                "RelinkCore", "RelinkStore", "RelinkServer",
                // An import's scratch file of the codes it has seen.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Plists and manifests read with libxml2 (`XMLDocument`), deployments asked over HTTP.
                "CLibXML2", .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: serverSwiftSettings
        ),
        // Embedded in apps: depends on nothing but the API's messages and Foundation.
        // Its privacy manifest ships with clients/RelinkClient, the package apps use.
        .target(name: "RelinkClient", dependencies: ["RelinkAPI"], exclude: ["PrivacyInfo.xcprivacy"], swiftSettings: swiftSettings),
        // Writes a file's text as a Swift string literal, for the plugin below; runs on the build machine only.
        .executableTarget(name: "RelinkEmbed", swiftSettings: swiftSettings),
        .plugin(name: "EmbedOpenAPIDocument", capability: .buildTool(), dependencies: ["RelinkEmbed"]),
        .executableTarget(
            name: "relink",
            dependencies: [
                "RelinkCore", "RelinkServer", "RelinkTools", "RelinkClient", "RelinkStore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "CSV", package: "CSV.swift"),
                // `serve` runs its own service group: the stop's deadline and its watchdog.
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            swiftSettings: swiftSettings
        ),
        // What several test targets share: loopback sockets, a proxy a test can cut, and the machine shared between
        // tests that measure time and tests that load it.
        .target(name: "RelinkTestSupport", path: "Tests/RelinkTestSupport", swiftSettings: swiftSettings),
        .testTarget(
            name: "RelinkCoreTests",
            dependencies: ["RelinkCore", "RelinkTestSupport", .product(name: "PropertyBased", package: "swift-property-based")],
            // The labelled User-Agent corpus platform detection is measured against.
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RelinkStoreTests",
            dependencies: [
                "RelinkStore", "RelinkCore", "RelinkTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"), .product(name: "Logging", package: "swift-log"),
                // The TLS tests run a fake PostgreSQL TLS endpoint on loopback, with throwaway certificates.
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            resources: [.copy("Fixtures")],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RelinkServerTests",
            dependencies: [
                "RelinkServer", "RelinkCore", "RelinkStore", "RelinkTestSupport",
                // The importer's, the verifier's and the deployment probe's tests use the server's test support.
                "RelinkTools",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                // A test closes connections of a bare NIO server (`LingeringCloseHandler`).
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // A test breaks the SQLite store underneath the click recorder.
                .product(name: "GRDB", package: "GRDB.swift"),
                // Page models answer their tags by name (`MustacheParent`); a test compares them with reflection.
                .product(name: "Mustache", package: "swift-mustache"),
                // The page property test parses every rendered page with libxml2's HTML parser.
                .product(name: "PropertyBased", package: "swift-property-based"),
                // The two-instance tests: real sockets to two servers on one PostgreSQL.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // The country database the link-rule tests read, and the script that wrote it.
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        // The client itself depends on nothing of ours but Core; its tests start a real server to talk to.
        .testTarget(
            name: "RelinkClientTests",
            dependencies: [
                "RelinkClient", "RelinkCore", "RelinkServer", "RelinkStore", "RelinkTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "RelinkCLITests",
            dependencies: [
                "relink", "RelinkCore", "RelinkServer", "RelinkTools", "RelinkStore", "RelinkTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                // The crash test loads a real `relink serve` process over HTTP and checks its SQLite file.
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "GRDB", package: "GRDB.swift"),
                // The bounded-stop test holds a SQLite write lock, as another process would.
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            // `relink doctor`'s fixture apps, read by path.
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
    ]
)
