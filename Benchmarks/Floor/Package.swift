// swift-tools-version:6.2
// The floor under the framework: a bare SwiftNIO HTTP/1 server answering every request with the same 302 (what
// nginx does in Benchmarks/run.sh), so that Hummingbird's cost per request (`/healthz`) can be read against it.
// `swift run -c release Floor PORT` in this folder; Benchmarks/run.sh builds and measures it.
import PackageDescription

let package = Package(
    name: "Floor",
    platforms: [.macOS(.v14)],
    dependencies: [.package(url: "https://github.com/apple/swift-nio", from: "2.101.2")],
    targets: [
        .executableTarget(
            name: "Floor",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ])
    ]
)
