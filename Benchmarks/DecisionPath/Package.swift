// swift-tools-version:6.2
// Nanoseconds per click for the pure decision path (resolve the link, detect the platform, plan the redirect),
// without sockets, so that changes to Core can be compared quickly: `swift run -c release` in this folder.
import PackageDescription

let package = Package(
    name: "DecisionPath",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "relink", path: "../..")],
    targets: [
        .executableTarget(name: "DecisionPath", dependencies: [.product(name: "RelinkCore", package: "relink")])
    ]
)
