// swift-tools-version:6.2
// Nanoseconds per rate-limit decision and resident memory, for 10 clients against 1,000,000 distinct ones, through
// the same fixed-capacity table the server's limiter shards (`TokenBuckets`): `swift run -c release` in this folder.
import PackageDescription

let package = Package(
    name: "RateLimit",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "relink", path: "../..")],
    targets: [
        .executableTarget(name: "RateLimit", dependencies: [.product(name: "RelinkCore", package: "relink")])
    ]
)
