import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore

/// The conformance suite's proxy between the client and the server: it gives each request the device's address
/// (`Forwarded: for=`), answers armed faults in order, counts what it saw, and never follows a redirect. Paths
/// under `canaryPrefix` are the canary: a place a client must never be led to.
final class FaultProxy: RouterMiddleware, Sendable {
    typealias Context = BasicRequestContext

    static let canaryPrefix = "/canary"

    private let upstream: any TestClientProtocol
    private let state = ProxyState()

    init(upstream: any TestClientProtocol) {
        self.upstream = upstream
    }

    func arm(_ faults: [ConformanceScenario.Fault]) async { await state.arm(faults) }
    func setAddress(_ address: String) async { await state.setAddress(address) }
    var requestCount: Int { get async { await state.requests } }
    var canaryCount: Int { get async { await state.canaryRequests } }
    var claimInstallIds: [String] { get async { await state.claimInstallIds } }

    /// Returns once the server has answered every request the proxy forwarded (a delayed one included).
    func awaitForwarded() async throws {
        for _ in 0..<1500 where await state.forwarding > 0 { try await Task.sleep(for: .milliseconds(20)) }
        if await state.forwarding > 0 { throw CancellationError() }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let body = try await request.body.collect(upTo: 1 << 20)
        if request.uri.path.hasPrefix(Self.canaryPrefix) {
            await state.sawCanary()
            return Response(status: .ok)
        }
        let (fault, address) = await state.take(path: request.uri.path, body: Data(body.readableBytesView))
        if let fault, fault.forward != true {
            var headers = HTTPFields()
            for (name, value) in fault.headers ?? [:] {
                if let field = HTTPField.Name(name) { headers[field] = value }
            }
            return Response(
                status: HTTPResponse.Status(code: fault.status ?? 200), headers: headers,
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: fault.body ?? Data())))
        }
        var headers: HTTPFields = [HTTPField.Name("Forwarded")!: "for=\(address)"]
        for name in [HTTPField.Name.contentType, .accept] { headers[name] = request.headers[name] }
        await state.startForwarding()
        let answer: TestResponse
        do {
            answer = try await upstream.execute(uri: "\(request.uri)", method: request.method, headers: headers, body: body)
            await state.endForwarding()
        } catch {
            await state.endForwarding()
            throw error
        }
        if let delay = fault?.delayMs { try await Task.sleep(for: .milliseconds(delay)) }
        var answerHeaders = HTTPFields()
        for name in [HTTPField.Name.contentType, .retryAfter, .location] { answerHeaders[name] = answer.headers[name] }
        return Response(status: answer.status, headers: answerHeaders, body: ResponseBody(byteBuffer: answer.body))
    }
}

/// What the proxy has armed and seen, for one scenario.
private actor ProxyState {
    var faults: [ConformanceScenario.Fault] = []
    var address = "127.0.0.1"
    var requests = 0
    var canaryRequests = 0
    var claimInstallIds: [String] = []
    /// Requests forwarded to the server and not yet answered by it.
    var forwarding = 0

    func startForwarding() { forwarding += 1 }
    func endForwarding() { forwarding -= 1 }
    func arm(_ faults: [ConformanceScenario.Fault]) { self.faults += faults }
    func setAddress(_ address: String) { self.address = address }
    func sawCanary() { canaryRequests += 1 }

    /// Counts a request and takes the next fault, if one is armed.
    func take(path: String, body: Data) -> (ConformanceScenario.Fault?, String) {
        requests += 1
        if path.hasSuffix("/installAttribution"),
            let json = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let installId = json["installId"] as? String
        {
            claimInstallIds.append(installId)
        }
        return (faults.isEmpty ? nil : faults.removeFirst(), address)
    }
}
