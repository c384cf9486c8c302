import Hummingbird
import RelinkCore

extension RelinkRequestContext {
    /// Works out once what the routes of `kind` read from the context: the origin and the client's network for
    /// every request, the bearer token for the API and clicks, the detected client for clicks (the redirect
    /// controller's; nil `kind`). `/healthz` and `/metrics` need none of it and stay as cheap as they were.
    /// - Parameter knownOrigin: the request's origin when the caller has worked it out already (the lean path).
    mutating func learnFacts(
        of request: Request, kind: RelinkMetrics.RequestKind?, forwardedHeaders: ForwardedHeaderPolicy, ipv6PrefixLength: Int,
        knownOrigin: RequestOrigin? = nil
    ) {
        if kind == .health || kind == .metrics { return }
        origin = knownOrigin ?? RequestOrigin(request: request, remoteAddress: remoteAddress, policy: forwardedHeaders)
        clientNetwork = ClientNetwork(origin.clientAddress, ipv6PrefixLength: ipv6PrefixLength)
        guard kind == nil || kind == .api else { return }
        bearer = BearerCredential.token(in: request.headers)
        if kind == nil { client = detectedClient(request) }
    }

    /// The client the request's User-Agent names: the one worked out for a click, or for the few other routes that
    /// need it (the console's debug view) worked out here, once.
    func detectedClient(_ request: Request) -> DetectedClient {
        client ?? PlatformDetector.detect(userAgent: request.headers[.userAgent] ?? "")
    }
}
