import Atomics
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import RelinkCore
import RelinkStore

/// Who is calling the API: the key from `?key=` (as FDL clients send it) or `Authorization: Bearer`, never two
/// different ones.
///
/// Failed keys are limited per client network (an IPv4 address, an IPv6 /64): past the budget a wrong key gets
/// 429 instead of 401, so a scan is slowed and says so. Good keys are always looked up and always pass, so
/// someone sharing a carrier NAT with a scanner cannot lock its good clients out. (A key has 256 random bits: the
/// limit is about log noise and load, not odds.)
struct APIKeyAuthenticator: Sendable {
    let store: any RelinkStore
    let configuration: RelinkConfiguration
    let limiter: ClientLimiter
    /// Lines about refused keys, over all networks: one a second, 100 at once. A client with many networks (IPv6
    /// /64s are cheap) would otherwise get a line per request past every network's own budget.
    let refusalLines = RateLimiter<Int>(capacity: 1, shards: 1)
    /// Refused keys not logged since the last line.
    let unloggedRefusals = ManagedAtomic(0)
    static let refusalLineBudget = RateLimit(requestsPerSecond: 1, burst: 100)

    struct Caller: Sendable {
        let key: APIKeyRecord
        let project: Project
    }

    static let iOSBundleHeader = HTTPField.Name("X-Ios-Bundle-Identifier")!

    /// A malformed request rather than a wrong key: no key is looked up, so it spends no failed-key budget.
    static let ambiguousKey = APIError.invalidArgument(
        "The request names two different API keys (in ?key= and Authorization: Bearer, or ?key= given twice); send one.")

    /// The most of a refused request's path a log line holds, in Unicode scalars.
    static let loggedPathLength = 200

    func authenticate(_ request: Request, context: RelinkRequestContext) async throws -> Caller {
        guard let key = try Self.key(in: request, context: context) else { throw APIError.missingKey }
        return try await authenticate(key: key, request: request, context: context)
    }

    /// The caller of a key from `Authorization: Bearer` alone (a marked click's query belongs to its link, not to us).
    func authenticate(bearer key: String, request: Request, context: RelinkRequestContext) async throws -> Caller {
        try await authenticate(key: key, request: request, context: context)
    }

    /// The caller of a key given to the console's sign-in: an API key or a console-only one.
    func authenticate(consoleKey key: String, request: Request, context: RelinkRequestContext) async throws -> Caller {
        try await authenticate(key: key, request: request, context: context, console: true)
    }

    private func authenticate(key: String, request: Request, context: RelinkRequestContext, console: Bool = false) async throws -> Caller {
        guard let record = try await store.apiKey(hash: APIKeys.hash(key)), !record.isRevoked,
            let project = configuration.project(id: record.projectId)
        else {
            // Logged within the network's budget of failed keys only, the path cut short: past it, a client sending
            // wrong keys (and long paths) would fill the disk with log lines.
            if case .failure(let error) = limiter.acquire(.failedKey, network: context.clientNetwork) { throw error }
            guard case .success = refusalLines.acquire(keyId: 0, limit: Self.refusalLineBudget, limiting: "") else {
                unloggedRefusals.wrappingIncrement(ordering: .relaxed)
                throw APIError.invalidKey
            }
            let unlogged = unloggedRefusals.exchange(0, ordering: .relaxed)
            // Never the key itself, nor the whole address: logs are read by more people than keys are given to.
            context.logger.notice(
                "API key not valid\(unlogged > 0 ? " (and \(unlogged) more refused keys not logged since the last line)" : "")",
                metadata: [
                    "client_network": "\(ClientNetwork.anonymized(context.origin.clientAddress))",
                    "path": "\(String(String.UnicodeScalarView(request.uri.path.unicodeScalars.prefix(Self.loggedPathLength))))",
                ])
            throw APIError.invalidKey
        }
        guard record.scope == .api || console else {
            throw APIError.permissionDenied("This key is for the console only (relink keys create --console); the API needs an API key.")
        }
        // iOS clients name their app; an app outside the key's project may not use it.
        if let bundle = request.headers[Self.iOSBundleHeader], project.iOSApp(bundleId: bundle) == nil {
            throw APIError.permissionDenied("Requests from this iOS client application \(bundle) are blocked for this API key.")
        }
        return Caller(key: record, project: project)
    }

    /// The caller when the request names a key (which must then be valid); nil for a request without one.
    func authenticateIfPresent(_ request: Request, context: RelinkRequestContext) async throws -> Caller? {
        try Self.key(in: request, context: context) == nil ? nil : try await authenticate(request, context: context)
    }

    /// The one key the request names, by `?key=` or `Authorization: Bearer`; nil when it names none (empty ones are
    /// none). The same key given more than once is that key. Two different keys are refused rather than one picked:
    /// a gateway that checked one of them must not see the request run as the other's project.
    static func key(in request: Request, context: RelinkRequestContext) throws -> String? {
        var key: Substring?
        func add(_ given: Substring) throws {
            guard !given.isEmpty else { return }
            if let key, key != given { throw Self.ambiguousKey }
            key = given
        }
        for given in request.uri.queryParameters.getAll("key") { try add(Substring(given)) }
        let fields = request.headers[values: .authorization]
        if fields.count > 1 {
            // The context's token is of the fields joined by commas: each is read on its own here.
            for field in fields { if let token = BearerCredential.token(inField: field) { try add(token) } }
        } else if let token = context.bearer {
            try add(token)
        }
        return key.map(String.init)
    }
}
