import Foundation

@testable import RelinkCore

/// One file of clients/conformance/scenarios, as clients/conformance/README.md describes it.
struct ConformanceScenario: Decodable, Sendable {
    struct ClientOptions: Decodable, Sendable {
        var timeoutMs: Int?
        var retryBudgetMs: Int?
    }

    struct Click: Decodable, Sendable {
        var path: String
        var userAgent: String
        var address: String
        var acceptLanguage: String?
    }

    struct Device: Decodable, Sendable {
        var osVersion: String?
        var deviceModelName: String?
        var screenWidth: Int?
        var screenHeight: Int?
        var languageCode: String?
        var timeZone: String?
        var installedAt: Int?
    }

    struct Claim: Decodable, Sendable {
        var address: String
        var installReferrer: String?
        var clipboardLink: String?
        var device: Device?
    }

    struct LinkCall: Decodable, Sendable {
        var address: String
        var url: String
    }

    struct ExpectedError: Decodable, Sendable {
        var kind: String
        var status: Int?
        var apiStatus: String?
        var retryAfterSeconds: Int?
    }

    struct Reopens: Decodable, Sendable {
        var link: String
        var count: Int
    }

    struct Expect: Decodable, Sendable {
        // A click's
        var status: Int?
        var locationStartsWith: String?
        // A call's
        var result: String?
        var deepLink: String?
        var confidence: String?
        var utmSource: String?
        var utmMedium: String?
        var utmCampaign: String?
        var utmContent: String?
        var utmTerm: String?
        var routeParameters: [String: String]?
        var error: ExpectedError?
        var requests: Int?
        var sameInstallId: Bool?
        var canaryRequests: Int?
        var emailServiceClicks: Int?
        var reopens: Reopens?

        /// The utm fields the scenario names, by name.
        var utm: [String: String] {
            let fields = ["utmSource": utmSource, "utmMedium": utmMedium, "utmCampaign": utmCampaign, "utmContent": utmContent, "utmTerm": utmTerm]
            return fields.compactMapValues { $0 }
        }
    }

    struct Fault: Decodable, Sendable {
        var status: Int?
        var headers: [String: String]?
        /// The answer's body: a string as it is, JSON written out.
        var body: Data?
        var forward: Bool?
        var delayMs: Int?

        enum CodingKeys: String, CodingKey { case status, headers, body, forward, delayMs }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.decodeIfPresent(Int.self, forKey: .status)
            headers = try container.decodeIfPresent([String: String].self, forKey: .headers)
            forward = try container.decodeIfPresent(Bool.self, forKey: .forward)
            delayMs = try container.decodeIfPresent(Int.self, forKey: .delayMs)
            if let text = try? container.decodeIfPresent(String.self, forKey: .body) {
                body = Data(text.utf8)
            } else if let json = try container.decodeIfPresent(JSONValue.self, forKey: .body) {
                body = try JSONEncoder().encode(json)
            }
        }
    }

    struct Step: Decodable, Sendable {
        var click: Click?
        var relaunch: Bool?
        /// With `relaunch`: the client's options from here on.
        var client: ClientOptions?
        var faults: [Fault]?
        var claim: Claim?
        var reopen: LinkCall?
        var resolve: LinkCall?
        var expect: Expect?
        var saveReferrerAs: String?
    }

    var description: String
    var platform: String
    var client: ClientOptions?
    var serverDown: Bool?
    var steps: [Step]

    static let scenarioKeys: Set<String> = ["description", "platform", "client", "serverDown", "steps"]
    static let stepKeys: Set<String> = ["click", "relaunch", "client", "faults", "claim", "reopen", "resolve", "expect", "saveReferrerAs"]
    static let expectKeys: Set<String> = [
        "status", "locationStartsWith", "result", "deepLink", "confidence", "utmSource", "utmMedium", "utmCampaign", "utmContent",
        "utmTerm", "routeParameters", "error", "requests", "sameInstallId", "canaryRequests",
        "emailServiceClicks", "reopens",
    ]

    /// Keys the README does not define, which decoding would skip silently: a misspelled expectation checks nothing.
    static func unknownKeys(in file: Data) throws -> [String] {
        let json = try JSONSerialization.jsonObject(with: file) as? [String: Any] ?? [:]
        var unknown = json.keys.filter { !scenarioKeys.contains($0) }
        for (index, step) in (json["steps"] as? [[String: Any]] ?? []).enumerated() {
            unknown += step.keys.filter { !stepKeys.contains($0) }.map { "step \(index + 1): \($0)" }
            let expect = step["expect"] as? [String: Any] ?? [:]
            unknown += expect.keys.filter { !expectKeys.contains($0) }.map { "step \(index + 1): expect.\($0)" }
        }
        return unknown
    }
}

/// links.json: the short links every conformance server has.
struct ConformanceLinks: Decodable, Sendable {
    struct ShortLink: Decodable, Sendable {
        var slug: String
        var longLink: String
    }

    var shortLinks: [ShortLink]
}
