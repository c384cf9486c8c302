// swift-tools-version:6.0
import PackageDescription

// The Swift client alone, for apps: its sources are the repository's own (Sources/RelinkClient and the API's
// messages, Sources/RelinkAPI, linked here), without the server's packages. An app that depended on the
// repository's root manifest would resolve and fetch all of them (30 packages), though it builds none.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "relink-client",
    platforms: [.macOS(.v12), .iOS(.v15)],
    products: [
        .library(name: "RelinkClient", targets: ["RelinkClient"])
    ],
    targets: [
        .target(name: "RelinkAPI", swiftSettings: swiftSettings),
        .target(
            name: "RelinkClient", dependencies: ["RelinkAPI"], resources: [.copy("PrivacyInfo.xcprivacy")], swiftSettings: swiftSettings),
    ]
)
