import AsyncHTTPClient
import NIOConcurrencyHelpers

/// The load the backup tests copy a store under: 20 links minted through a running server's API, then clicks on
/// them from 6 clients and more mints, until `stop()`.
final class MintingLoad: Sendable {
    /// The codes minted so far, in order.
    let minted = NIOLockedValueBox<[String]>([])
    let clicks = CrashSafetyTests.Load()
    private let running = NIOLockedValueBox<[Task<Void, Never>]>([])

    static func start(http: HTTPClient, port: Int, key: String, pathPrefix: String) async throws -> MintingLoad {
        let load = MintingLoad()
        @Sendable func mint(_ index: Int) async throws {
            guard let path = try await CrashSafetyTests.mint(http: http, port: port, key: key, path: "\(pathPrefix)/\(index)") else { return }
            load.minted.withLockedValue { $0.append(String(path.dropFirst())) }
        }
        for index in 0..<20 { try await mint(index) }
        let paths = load.minted.withLockedValue { $0 }.map { "/\($0)" }
        let clicking = Task { await load.clicks.run(http: http, port: port, paths: paths, workers: 6) }
        let minting = Task {
            var index = 20
            while !load.clicks.stopped.withLockedValue({ $0 }) {
                try? await mint(index)
                index += 1
            }
        }
        load.running.withLockedValue { $0 = [clicking, minting] }
        return load
    }

    /// Stops clicking and minting, and waits for both to end.
    func stop() async {
        clicks.stopped.withLockedValue { $0 = true }
        for task in running.withLockedValue({ $0 }) { await task.value }
    }
}
