import Foundation
import RelinkCore

@testable import RelinkStore

/// The rows an older release left in its store, written by hand in that release's own schema, and what the store's
/// reading API must give back for them once the store is upgraded.
///
/// One fill step per migration that added a table or a column: it inserts rows into the new table, or sets the new
/// column on rows written before. Applying the steps of the migrations up to a version, in order, fills every table
/// that version has, with only the columns it has.
struct OldRows: Sendable {
    var links: [String: ShortLinkRecord] = [:]
    var apiKeys: [String: APIKeyRecord] = [:]
    /// By link code.
    var dailyCounts: [String: Set<DailyEventCount>] = [:]
    var variantCounts: [String: Set<VariantEventCount>] = [:]
    var confidenceCounts: [String: Set<ConfidenceCount>] = [:]
    var clicks: [String: PendingClick] = [:]
    /// The code of the link each click was made on, for clicks that name one.
    var clickedCodes: [String: String] = [:]
    var installClaims: [InstallClaim] = []
    var settings: [String: String] = [:]
    var shadowMatches: Set<ShadowMatchCount> = []
    /// By URL (ids are the store's).
    var webhooks: [String: WebhookRecord] = [:]
    /// By webhook URL, newest first.
    var deliveries: [String: [WebhookDelivery]] = [:]
    /// With the hash of the key each session belongs to.
    var sessions: [(session: ConsoleSessionRecord, keyHash: String)] = []

    /// The rows and their expected reading after the steps of `migrations`, which is a prefix of the migration list.
    static func written(by migrations: some Sequence<String>) -> (statements: [Statement], rows: OldRows) {
        var statements: [Statement] = []
        var rows = OldRows()
        for migration in migrations {
            guard let step = steps.first(where: { $0.migration == migration }) else { continue }
            statements += step.statements
            step.expect(&rows)
        }
        return (statements, rows)
    }

    struct Step: Sendable {
        let migration: String
        let statements: [Statement]
        let expect: @Sendable (inout OldRows) -> Void
    }

    static let project = "pictlink"
    static let domain = "https://go.pictlink.com"
    static let day = 19_675
    /// A link too long for a click's own row (kept once in `clicked_links` from migration 4 on).
    static let longLink = "https://go.pictlink.com/?link=https://pictlink.com/" + String(repeating: "x", count: 600)

    static let steps: [Step] = [
        Step(
            migration: "1-links-keys-events",
            statements: [
                .insert(
                    "links",
                    [
                        "project_id": .text(project), "domain": .text(domain), "code": "plain",
                        "long_link": "https://go.pictlink.com/?link=https://pictlink.com/a&apn=com.pictlink&utm_source=mail",
                        "parameters": #"{"apn":"com.pictlink","link":"https://pictlink.com/a","utm_source":"mail"}"#,
                        "suffix_option": "SHORT", "idempotency_key": "key-plain", "disabled": false, "created_at": 1_700_000_000,
                        "updated_at": 1_700_000_100,
                    ]),
                .insert(
                    "links",
                    [
                        "project_id": .text(project), "domain": .text(domain), "code": "Exp1r3d",
                        "long_link": "https://go.pictlink.com/?link=https://pictlink.com/b&ibi=com.pictlink.ios&ifl=https://pictlink.com/ios",
                        "parameters": #"{"ibi":"com.pictlink.ios","ifl":"https://pictlink.com/ios","link":"https://pictlink.com/b"}"#,
                        "suffix_option": "UNGUESSABLE", "disabled": true, "expires_at": 1_800_000_000.5, "created_at": 1_700_000_001,
                        "updated_at": 1_700_000_002,
                    ]),
                .insert(
                    "links",
                    [
                        "project_id": "other", "domain": "https://other.example", "code": "Other1",
                        "long_link": "https://other.example/?link=https://other.example/x", "parameters": #"{"link":"https://other.example/x"}"#,
                        "suffix_option": "CUSTOM", "created_at": 1_700_000_003, "updated_at": 1_700_000_003,
                    ]),
                .insert(
                    "api_keys",
                    [
                        "project_id": .text(project), "name": "deploy", "key_hash": "hash-deploy", "key_prefix": "rl_Ab3x",
                        "created_at": 1_700_000_010,
                    ]),
                .insert(
                    "api_keys",
                    [
                        "project_id": .text(project), "key_hash": "hash-revoked", "key_prefix": "rl_Zz9q", "created_at": 1_700_000_020,
                        "revoked_at": 1_700_000_030,
                    ]),
            ]
                + [
                    ("plain", day, StatsPlatform.ios, LinkEvent.click, 5), ("plain", day, .android, .click, 3_000_000_000),
                    ("plain", day + 1, .ios, .appInstall, 2), ("plain", day + 1, .crawler, .click, 7), ("Exp1r3d", day, .desktop, .click, 4),
                    ("Exp1r3d", day, .desktop, .redirect, 4),
                ].map { code, day, platform, event, count in
                    .insert(
                        "event_counters",
                        [
                            "link_id": .idOf("links", "code", code), "day": .integer(Int64(day)), "platform": .text(platform.rawValue),
                            "event": .text(event.rawValue), "count": .integer(count),
                        ])
                },
            expect: { rows in
                rows.links["plain"] = ShortLinkRecord(
                    id: 0, projectId: project, domain: domain, code: "plain",
                    longLink: "https://go.pictlink.com/?link=https://pictlink.com/a&apn=com.pictlink&utm_source=mail",
                    parameters: LinkParameters([.link: "https://pictlink.com/a", .apn: "com.pictlink", .utmSource: "mail"]),
                    suffixOption: .short, idempotencyKey: "key-plain", createdAt: Date(timeIntervalSince1970: 1_700_000_000),
                    updatedAt: Date(timeIntervalSince1970: 1_700_000_100))
                rows.links["Exp1r3d"] = ShortLinkRecord(
                    id: 0, projectId: project, domain: domain, code: "Exp1r3d",
                    longLink: "https://go.pictlink.com/?link=https://pictlink.com/b&ibi=com.pictlink.ios&ifl=https://pictlink.com/ios",
                    parameters: LinkParameters([.link: "https://pictlink.com/b", .ibi: "com.pictlink.ios", .ifl: "https://pictlink.com/ios"]),
                    suffixOption: .unguessable, idempotencyKey: nil, disabled: true, expiresAt: Date(timeIntervalSince1970: 1_800_000_000.5),
                    createdAt: Date(timeIntervalSince1970: 1_700_000_001), updatedAt: Date(timeIntervalSince1970: 1_700_000_002))
                rows.links["Other1"] = ShortLinkRecord(
                    id: 0, projectId: "other", domain: "https://other.example", code: "Other1",
                    longLink: "https://other.example/?link=https://other.example/x", parameters: LinkParameters([.link: "https://other.example/x"]),
                    suffixOption: .custom, idempotencyKey: nil, createdAt: Date(timeIntervalSince1970: 1_700_000_003),
                    updatedAt: Date(timeIntervalSince1970: 1_700_000_003))
                // Keys from before scopes were kept are API keys.
                rows.apiKeys["hash-deploy"] = APIKeyRecord(
                    id: 0, projectId: project, name: "deploy", keyHash: "hash-deploy", keyPrefix: "rl_Ab3x",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_010), revokedAt: nil, scope: .api)
                rows.apiKeys["hash-revoked"] = APIKeyRecord(
                    id: 0, projectId: project, name: nil, keyHash: "hash-revoked", keyPrefix: "rl_Zz9q",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_020), revokedAt: Date(timeIntervalSince1970: 1_700_000_030), scope: .api)
                rows.dailyCounts["plain"] = [
                    DailyEventCount(day: day, platform: .ios, event: .click, count: 5),
                    DailyEventCount(day: day, platform: .android, event: .click, count: 3_000_000_000),
                    DailyEventCount(day: day + 1, platform: .ios, event: .appInstall, count: 2),
                    DailyEventCount(day: day + 1, platform: .crawler, event: .click, count: 7),
                ]
                rows.dailyCounts["Exp1r3d"] = [
                    DailyEventCount(day: day, platform: .desktop, event: .click, count: 4),
                    DailyEventCount(day: day, platform: .desktop, event: .redirect, count: 4),
                ]
            }),
        Step(
            migration: "2-deferred-links",
            statements: [
                .insert(
                    "pending_clicks",
                    [
                        "id": "click-open", "project_id": .text(project), "platform": "IOS", "link_id": .idOf("links", "code", "plain"),
                        "requested_link": "https://go.pictlink.com/plain", "created_at": 1_700_000_200, "address_hash": "addr-1",
                        "network_hash": "net-1", "ip_version": 4, "os_version": "17.4", "device": "iPhone15,2",
                        "languages": "en-US,es", "screen": "393x852", "time_zone": "Europe/Madrid",
                    ]),
                .insert(
                    "pending_clicks",
                    [
                        "id": "click-weak", "project_id": .text(project), "platform": "ANDROID",
                        "requested_link": "https://go.pictlink.com/?link=https://pictlink.com/c&apn=com.pictlink", "created_at": 1_700_000_300,
                        "address_hash": "addr-2", "ip_version": 6, "languages": "", "claimed_at": 1_700_000_400, "confidence": "WEAK",
                    ]),
                .insert(
                    "pending_clicks",
                    [
                        "id": "click-taken", "project_id": .text(project), "platform": "IOS", "link_id": .idOf("links", "code", "Exp1r3d"),
                        "requested_link": "https://go.pictlink.com/Exp1r3d", "created_at": 1_700_000_310, "languages": "fr",
                        "claimed_at": 1_700_000_320, "confidence": "DEFAULT",
                    ]),
                .insert(
                    "install_claims",
                    [
                        "project_id": .text(project), "install_id": "install-1",
                        "response": #"{"deepLink":"https://pictlink.com/a","matchType":"unique"}"#, "created_at": 1_700_000_450,
                    ]),
                .insert("settings", ["key": "address-secret", "value": "s3cret ☀️"]),
            ],
            expect: { rows in
                rows.clicks["click-open"] = PendingClick(
                    id: "click-open", projectId: project, platform: .iOS, linkId: 0, requestedLink: "https://go.pictlink.com/plain",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_200),
                    fingerprint: DeviceFingerprint(
                        addressHash: "addr-1", networkHash: "net-1", ipVersion: .v4, osVersion: "17.4", device: "iPhone15,2",
                        languages: ["en-US", "es"], screen: "393x852", timeZone: "Europe/Madrid"))
                rows.clickedCodes["click-open"] = "plain"
                rows.clicks["click-weak"] = PendingClick(
                    id: "click-weak", projectId: project, platform: .android, linkId: nil,
                    requestedLink: "https://go.pictlink.com/?link=https://pictlink.com/c&apn=com.pictlink",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_300), fingerprint: DeviceFingerprint(addressHash: "addr-2", ipVersion: .v6),
                    claimedAt: Date(timeIntervalSince1970: 1_700_000_400), confidence: .weak)
                rows.clicks["click-taken"] = PendingClick(
                    id: "click-taken", projectId: project, platform: .iOS, linkId: 0, requestedLink: "https://go.pictlink.com/Exp1r3d",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_310), fingerprint: DeviceFingerprint(languages: ["fr"]),
                    claimedAt: Date(timeIntervalSince1970: 1_700_000_320), confidence: .default)
                rows.clickedCodes["click-taken"] = "Exp1r3d"
                rows.installClaims = [
                    InstallClaim(
                        projectId: project, installId: "install-1", response: #"{"deepLink":"https://pictlink.com/a","matchType":"unique"}"#,
                        createdAt: Date(timeIntervalSince1970: 1_700_000_450))
                ]
                rows.settings["address-secret"] = "s3cret ☀️"
            }),
        Step(
            migration: "3-click-app",
            statements: [
                .update("pending_clicks", ["app_id": "com.pictlink.ios"], where: "id", is: "click-open"),
                .update("pending_clicks", ["app_id": "com.pictlink"], where: "id", is: "click-weak"),
            ],
            expect: { rows in
                rows.clicks["click-open"]?.appId = "com.pictlink.ios"
                rows.clicks["click-weak"]?.appId = "com.pictlink"
            }),
        Step(
            migration: "4-clicked-links",
            statements: [
                .insert(
                    "clicked_links",
                    [
                        "project_id": .text(project), "digest": .text(ClickedLink.digest(longLink)), "link": .text(longLink),
                        "last_clicked_at": 1_700_000_500,
                    ]),
                .insert(
                    "pending_clicks",
                    [
                        "id": "click-long", "project_id": .text(project), "platform": "ANDROID", "requested_link": "",
                        "link_digest": .text(ClickedLink.digest(longLink)), "created_at": 1_700_000_500, "address_hash": "addr-3",
                        "languages": "de",
                    ]),
            ],
            expect: { rows in
                rows.clicks["click-long"] = PendingClick(
                    id: "click-long", projectId: project, platform: .android, linkId: nil, requestedLink: longLink,
                    createdAt: Date(timeIntervalSince1970: 1_700_000_500), fingerprint: DeviceFingerprint(addressHash: "addr-3", languages: ["de"]))
            }),
        Step(
            migration: "5-shadow-matches",
            statements: [
                .insert(
                    "shadow_matches",
                    ["project_id": .text(project), "day": .integer(Int64(day)), "confidence": "DEFAULT", "same_click": true, "count": 3]),
                .insert(
                    "shadow_matches",
                    ["project_id": .text(project), "day": .integer(Int64(day)), "confidence": "NONE", "same_click": false, "count": 1]),
            ],
            expect: { rows in
                rows.shadowMatches = [
                    ShadowMatchCount(confidence: .default, sameClick: true, count: 3), ShadowMatchCount(confidence: nil, sameClick: false, count: 1),
                ]
            }),
        Step(
            migration: "8-imported-links",
            statements: [.update("links", ["archived": true, "name": #"Spring ☀️, "2021""#], where: "code", is: "plain")],
            expect: { rows in
                rows.links["plain"]?.archived = true
                rows.links["plain"]?.name = #"Spring ☀️, "2021""#
            }),
        Step(
            migration: "9-page-previews",
            statements: [
                .update(
                    "links",
                    [
                        "fetch_preview": true,
                        "preview":
                            #"{"description":"Photos, shared","fetchedAt":1700000700,"imageURL":"https://pictlink.com/i.png","title":"Pictlink"}"#,
                        "preview_fetched_at": 1_700_000_700,
                    ], where: "code", is: "plain")
            ],
            expect: { rows in
                rows.links["plain"]?.fetchPreview = true
                rows.links["plain"]?.preview = PagePreview(
                    title: "Pictlink", description: "Photos, shared", imageURL: "https://pictlink.com/i.png",
                    fetchedAt: Date(timeIntervalSince1970: 1_700_000_700))
            }),
        Step(
            migration: "10-link-rules",
            statements: [
                .update(
                    "links",
                    [
                        "rules":
                            #"{"rules":[{"name":"Spain","then":{"link":"https://pictlink.com/es"},"when":{"countries":["ES"]}}],"variants":[{"name":"a","weight":1},{"destination":{"link":"https://pictlink.com/b2"},"name":"b","weight":3}]}"#
                    ], where: "code", is: "Exp1r3d")
            ],
            expect: { rows in
                rows.links["Exp1r3d"]?.rules = LinkRules(
                    rules: [
                        LinkRule(name: "Spain", when: RuleCondition(countries: ["ES"]), then: DestinationOverride(link: "https://pictlink.com/es"))
                    ],
                    variants: [
                        LinkVariant(name: "a", weight: 1),
                        LinkVariant(name: "b", weight: 3, destination: DestinationOverride(link: "https://pictlink.com/b2")),
                    ])
            }),
        Step(
            migration: "11-variant-counters",
            statements: ["a", "b"].map { variant in
                .insert(
                    "variant_counters",
                    [
                        "link_id": .idOf("links", "code", "Exp1r3d"), "day": .integer(Int64(day)), "variant": .text(variant),
                        "platform": "DESKTOP", "event": "CLICK", "count": 2,
                    ])
            } + [.update("pending_clicks", ["variant": "b"], where: "id", is: "click-taken")],
            expect: { rows in
                rows.variantCounts["Exp1r3d"] = [
                    VariantEventCount(variant: "a", platform: .desktop, event: .click, count: 2),
                    VariantEventCount(variant: "b", platform: .desktop, event: .click, count: 2),
                ]
                rows.clicks["click-taken"]?.variant = "b"
            }),
        Step(
            migration: "12-click-limits",
            statements: [.update("links", ["max_clicks": 100, "expired_link": "https://pictlink.com/over"], where: "code", is: "Exp1r3d")],
            expect: { rows in
                rows.links["Exp1r3d"]?.maxClicks = 100
                rows.links["Exp1r3d"]?.expiredLink = "https://pictlink.com/over"
            }),
        Step(
            migration: "13-webhooks",
            statements: [
                .insert(
                    "webhooks",
                    [
                        "project_id": .text(project), "url": "https://hooks.pictlink.com/relink", "events": "click,link.created",
                        "secret": "whsec_1", "created_at": 1_700_000_800,
                    ]),
                .insert(
                    "webhook_deliveries",
                    [
                        "id": "delivery-1", "webhook_id": .idOf("webhooks", "url", "https://hooks.pictlink.com/relink"),
                        "event": "link.created", "payload": #"{"code":"plain"}"#, "created_at": 1_700_000_810, "attempts": 2,
                        "next_attempt_at": 1_700_000_900, "status": "PENDING", "last_status": 500, "last_error": "HTTP 500",
                        // A sender stopped mid-lease: the lease has run out, so the delivery is due again.
                        "leased_until": 1_700_000_950,
                    ]),
                .insert(
                    "webhook_deliveries",
                    [
                        "id": "delivery-2", "webhook_id": .idOf("webhooks", "url", "https://hooks.pictlink.com/relink"), "event": "click",
                        "payload": #"{"code":"Exp1r3d"}"#, "created_at": 1_700_000_820, "attempts": 1, "next_attempt_at": 1_700_000_820,
                        "status": "DELIVERED", "last_status": 204, "delivered_at": 1_700_000_821,
                    ]),
            ],
            expect: { rows in
                let url = "https://hooks.pictlink.com/relink"
                rows.webhooks[url] = WebhookRecord(
                    id: 0, projectId: project, url: url, events: ["click", "link.created"], secret: "whsec_1",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_800))
                rows.deliveries[url] = [
                    WebhookDelivery(
                        id: "delivery-2", webhookId: 0, event: "click", payload: #"{"code":"Exp1r3d"}"#,
                        createdAt: Date(timeIntervalSince1970: 1_700_000_820), attempts: 1, nextAttemptAt: Date(timeIntervalSince1970: 1_700_000_820),
                        status: .delivered, lastStatus: 204, deliveredAt: Date(timeIntervalSince1970: 1_700_000_821)),
                    WebhookDelivery(
                        id: "delivery-1", webhookId: 0, event: "link.created", payload: #"{"code":"plain"}"#,
                        createdAt: Date(timeIntervalSince1970: 1_700_000_810), attempts: 2, nextAttemptAt: Date(timeIntervalSince1970: 1_700_000_900),
                        status: .pending, lastStatus: 500, lastError: "HTTP 500"),
                ]
            }),
        Step(
            migration: "14-console",
            statements: [
                .insert(
                    "api_keys",
                    [
                        "project_id": .text(project), "name": "console", "key_hash": "hash-console", "key_prefix": "rl_C0ns",
                        "created_at": 1_700_000_900, "scope": "CONSOLE",
                    ]),
                .insert(
                    "console_sessions",
                    [
                        "id_hash": "session-hash", "key_id": .idOf("api_keys", "key_hash", "hash-console"), "data": #"{"csrf":"t0k3n"}"#,
                        "created_at": 1_700_000_910, "expires_at": 4_000_000_000,
                    ]),
            ]
                + [("UNIQUE", 1), ("WEAK", 2)].map { confidence, count in
                    .insert(
                        "confidence_counters",
                        [
                            "link_id": .idOf("links", "code", "plain"), "day": .integer(Int64(day + 1)), "confidence": .text(confidence),
                            "count": .integer(count),
                        ])
                },
            expect: { rows in
                rows.apiKeys["hash-console"] = APIKeyRecord(
                    id: 0, projectId: project, name: "console", keyHash: "hash-console", keyPrefix: "rl_C0ns",
                    createdAt: Date(timeIntervalSince1970: 1_700_000_900), revokedAt: nil, scope: .console)
                rows.sessions = [
                    (
                        ConsoleSessionRecord(
                            idHash: "session-hash", keyId: 0, data: #"{"csrf":"t0k3n"}"#, expiresAt: Date(timeIntervalSince1970: 4_000_000_000)),
                        "hash-console"
                    )
                ]
                rows.confidenceCounts["plain"] = [
                    ConfidenceCount(day: day + 1, confidence: .unique, count: 1), ConfidenceCount(day: day + 1, confidence: .weak, count: 2),
                ]
            }),
        Step(
            migration: "20-webhooks-removed-at-once-and-pending-kept",
            statements: [
                .insert(
                    "webhooks",
                    [
                        "project_id": .text(project), "url": "https://hooks.pictlink.com/removed", "events": "click", "secret": "whsec_2",
                        "created_at": 1_700_000_850, "deleted_at": 1_700_000_950,
                    ]),
                .insert(
                    "webhook_deliveries",
                    [
                        "id": "delivery-3", "webhook_id": .idOf("webhooks", "url", "https://hooks.pictlink.com/removed"), "event": "click",
                        "payload": #"{"code":"plain"}"#, "created_at": 1_700_000_860, "next_attempt_at": 1_700_000_860, "status": "PENDING",
                    ]),
            ],
            // Removed, its deliveries not purged yet: never listed, and its due delivery never leased.
            expect: { _ in }),
    ]
}
