/// The OpenAPI 3.1 document of Relink's REST API. A test checks that every route under `/v1` appears here and
/// that the document is valid JSON; keep it in step with the controllers.
enum OpenAPIDocument {
    static let json = #"""
        {
          "openapi": "3.1.0",
          "info": {
            "title": "Relink REST API",
            "version": "1.0.0",
            "description": "Firebase Dynamic Links' REST API, self-hosted: point FDL clients at the Relink host instead of firebasedynamiclinks.googleapis.com. Errors use Google's body: {\"error\": {\"code\", \"message\", \"status\"}}."
          },
          "servers": [{"url": "/"}],
          "security": [{"apiKeyQuery": []}, {"bearer": []}],
          "paths": {
            "/v1/shortLinks": {
              "post": {
                "operationId": "createShortLink",
                "summary": "Mint a short link from a long link or from its parameters (FDL's shortLinks.create).",
                "description": "The same project, canonical long link and suffix option return the same short link. Rate-limited per API key (per project in routes.json; default 100 requests/s with a burst of 500).",
                "parameters": [{"$ref": "#/components/parameters/iosBundle"}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateShortLinkRequest"}}}},
                "responses": {
                  "200": {"description": "The short link.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateShortLinkResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "409": {"description": "The custom suffix is taken by another link.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/links": {
              "get": {
                "operationId": "listLinks",
                "summary": "List the API key's project's short links, newest first.",
                "parameters": [
                  {"name": "pageSize", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 1000, "default": 100}},
                  {"name": "pageToken", "in": "query", "schema": {"type": "string"}, "description": "nextPageToken of the previous page."},
                  {"name": "q", "in": "query", "schema": {"type": "string", "maxLength": 200}, "description": "Only links whose code, long link or name contains this text (ASCII case ignored)."}
                ],
                "responses": {
                  "200": {"description": "One page.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LinkListResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/links/{shortLink}": {
              "parameters": [{"$ref": "#/components/parameters/shortLink"}],
              "get": {
                "operationId": "getLink",
                "summary": "Read one short link.",
                "responses": {
                  "200": {"description": "The link.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ManagedLink"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              },
              "patch": {
                "operationId": "updateLink",
                "summary": "Change a short link's destination or parameters, disable it, or set its expiry. Takes effect on the next click.",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/UpdateLinkRequest"}}}},
                "responses": {
                  "200": {"description": "The link as saved.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ManagedLink"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/links/{shortLink}/refreshPreview": {
              "parameters": [{"$ref": "#/components/parameters/shortLink"}],
              "post": {
                "operationId": "refreshLinkPreview",
                "summary": "Fetch the link's destination page now (at most a few seconds) and store its link-preview card. A page that gives none keeps the last card and says why in preview.failure.",
                "responses": {
                  "200": {"description": "The link with its card.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ManagedLink"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/webhooks": {
              "get": {
                "operationId": "listWebhooks", "summary": "The key's project's webhooks (without their secrets).",
                "responses": {
                  "200": {"description": "The webhooks.", "content": {"application/json": {"schema": {"type": "object", "properties": {"webhooks": {"type": "array", "items": {"$ref": "#/components/schemas/Webhook"}}}}}}},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              },
              "post": {
                "operationId": "addWebhook", "summary": "Subscribe a public http(s) URL to events (all when absent); the answer carries the signing secret, once.",
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "required": ["url"], "properties": {"url": {"type": "string"}, "events": {"type": "array", "items": {"type": "string", "enum": ["link.created", "link.updated", "click", "install.claimed", "app.first_open", "app.re_open"]}}}}}}},
                "responses": {
                  "200": {"description": "The webhook, with its secret.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Webhook"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"}
                }
              }
            },
            "/v1/webhooks/{id}": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "delete": {
                "operationId": "removeWebhook", "summary": "Remove a webhook and its deliveries.",
                "responses": {
                  "200": {"description": "The removed webhook.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Webhook"}}}},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/webhooks/{id}/test": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
              "post": {
                "operationId": "testWebhook", "summary": "Queue a webhook.test event for the webhook.",
                "responses": {
                  "200": {"description": "The delivery's id.", "content": {"application/json": {"schema": {"type": "object", "properties": {"deliveryId": {"type": "string"}}}}}},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/webhooks/{id}/deliveries": {
              "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}, {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 500, "default": 50}}],
              "get": {
                "operationId": "listWebhookDeliveries", "summary": "The webhook's latest deliveries, newest first, with their status.",
                "responses": {
                  "200": {"description": "The deliveries.", "content": {"application/json": {"schema": {"type": "object", "properties": {"deliveries": {"type": "array", "items": {"type": "object", "properties": {
                    "id": {"type": "string"}, "event": {"type": "string"}, "status": {"type": "string", "enum": ["PENDING", "DELIVERED", "FAILED"]},
                    "attempts": {"type": "integer"}, "createTime": {"type": "string", "format": "date-time"}, "nextAttemptTime": {"type": "string", "format": "date-time"},
                    "deliverTime": {"type": "string", "format": "date-time"}, "lastStatus": {"type": "integer"}, "lastError": {"type": "string"}}}}}}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "404": {"$ref": "#/components/responses/NotFound"}
                }
              }
            },
            "/v1/{shortLink}/linkStats": {
              "get": {
                "operationId": "getLinkStats",
                "summary": "Event counts of a short link over the last durationDays days (FDL's getLinkStats).",
                "parameters": [
                  {"$ref": "#/components/parameters/shortLink"},
                  {"name": "durationDays", "in": "query", "required": true, "schema": {"type": "integer", "minimum": 1, "maximum": 36500}},
                  {"name": "includeCrawlers", "in": "query", "schema": {"type": "boolean", "default": false}, "description": "Also list link-preview crawler visits (platform CRAWLER)."}
                ],
                "responses": {
                  "200": {"description": "The counts.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/LinkStatsResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/{shortLink}/deferredClicks": {
              "get": {
                "operationId": "getDeferredClicks",
                "summary": "A short link's clicks kept for deferred linking, newest first, and whether an install claimed each (for testing; no click ids or addresses).",
                "parameters": [
                  {"$ref": "#/components/parameters/shortLink"},
                  {"name": "limit", "in": "query", "schema": {"type": "integer", "minimum": 1, "maximum": 100, "default": 20}}
                ],
                "responses": {
                  "200": {"description": "The clicks.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/DeferredClicksResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "401": {"$ref": "#/components/responses/Unauthenticated"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/installAttribution": {
              "post": {
                "operationId": "installAttribution",
                "summary": "On an app's first launch, the link the user clicked before installing (FDL's installAttribution).",
                "description": "A clipboard claim link (iOS) or install referrer (Android) gives UNIQUE; otherwise recent unclaimed clicks of the app's project from the install's address or network are weighed on the device's signals and the delay since each click: DEFAULT when one click from this address is at least 99% likely (against every other click and an install from no click), WEAK for the likeliest from 40%, no deepLink (with matchMessage) otherwise. With the project's deferred.debug on, the answer carries debug: every candidate's evidence. A click goes to one install; the same installId gets the same answer. No API key is needed; one that is sent must be the app's project's. Rate-limited per client address.",
                "security": [{}, {"apiKeyQuery": []}, {"bearer": []}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InstallAttributionRequest"}}}},
                "responses": {
                  "200": {"description": "The answer; without a match, deepLink and attributionConfidence are absent.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/InstallAttributionResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "413": {"$ref": "#/components/responses/TooLarge"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/reopenAttribution": {
              "post": {
                "operationId": "reopenAttribution",
                "summary": "The deep link of a Relink link that opened the installed app; counts APP_RE_OPEN for short links.",
                "security": [{}, {"apiKeyQuery": []}, {"bearer": []}],
                "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ReopenAttributionRequest"}}}},
                "responses": {
                  "200": {"description": "The deep link.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ReopenAttributionResponse"}}}},
                  "400": {"$ref": "#/components/responses/InvalidArgument"},
                  "403": {"$ref": "#/components/responses/PermissionDenied"},
                  "404": {"$ref": "#/components/responses/NotFound"},
                  "429": {"$ref": "#/components/responses/RateLimited"}
                }
              }
            },
            "/v1/openapi.json": {
              "get": {
                "operationId": "getOpenAPI",
                "summary": "This document.",
                "security": [],
                "responses": {"200": {"description": "OpenAPI 3.1.", "content": {"application/json": {"schema": {"type": "object"}}}}}
              }
            }
          },
          "components": {
            "securitySchemes": {
              "apiKeyQuery": {"type": "apiKey", "in": "query", "name": "key", "description": "A key from `relink keys create`, as FDL clients send it."},
              "bearer": {"type": "http", "scheme": "bearer", "description": "The same key as Authorization: Bearer <key>."}
            },
            "parameters": {
              "shortLink": {"name": "shortLink", "in": "path", "required": true, "schema": {"type": "string"}, "description": "The URL-encoded short link, such as https%3A%2F%2Fgo.pictlink.com%2FAb3x."},
              "iosBundle": {"name": "X-Ios-Bundle-Identifier", "in": "header", "schema": {"type": "string"}, "description": "Sent by iOS clients; must be an iOS app of the key's project."}
            },
            "responses": {
              "InvalidArgument": {"description": "Malformed JSON, an invalid or disallowed link, or an unknown option (status INVALID_ARGUMENT).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "Unauthenticated": {"description": "No API key, or an unknown or revoked one (status UNAUTHENTICATED).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "PermissionDenied": {"description": "The domain, link or iOS app belongs to another project (status PERMISSION_DENIED).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "NotFound": {"description": "No such short link (status NOT_FOUND).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "TooLarge": {"description": "The body is over 64 KiB.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}},
              "RateLimited": {
                "description": "A rate limit (status RESOURCE_EXHAUSTED); the message says which: mints with this key, claims or re-open reports from this address, or failed API keys from this address.",
                "headers": {"Retry-After": {"schema": {"type": "integer"}, "description": "Seconds until a request is allowed."}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
              }
            },
            "schemas": {
              "Error": {
                "type": "object", "required": ["error"],
                "properties": {"error": {"type": "object", "required": ["code", "message", "status"], "properties": {
                  "code": {"type": "integer"}, "message": {"type": "string"},
                  "status": {"type": "string", "enum": ["INVALID_ARGUMENT", "UNAUTHENTICATED", "PERMISSION_DENIED", "NOT_FOUND", "ALREADY_EXISTS", "RESOURCE_EXHAUSTED", "UNIMPLEMENTED", "FAILED_PRECONDITION", "UNAVAILABLE", "INTERNAL"]}}}}
              },
              "CreateShortLinkRequest": {
                "type": "object",
                "description": "Exactly one of longDynamicLink and dynamicLinkInfo.",
                "properties": {
                  "longDynamicLink": {"type": "string", "description": "https://<domain>/?link=…&apn=…"},
                  "dynamicLinkInfo": {"$ref": "#/components/schemas/DynamicLinkInfo"},
                  "suffix": {"type": "object", "properties": {
                    "option": {"type": "string", "enum": ["OPTION_UNSPECIFIED", "UNGUESSABLE", "SHORT", "CUSTOM"], "default": "UNGUESSABLE"},
                    "customSuffix": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$", "description": "With CUSTOM (a Relink extension)."}}},
                  "sdkVersion": {"type": "string"},
                  "fetchPreview": {"type": "boolean", "description": "Relink extension: fill the link-preview card from the destination page, fetched in the background."},
                  "rules": {"type": "object", "description": "Relink extension: rules and A/B variants (docs/rules.md)."},
                  "expireTime": {"type": "string", "format": "date-time", "description": "Relink extension: the link is over after it."},
                  "maxClicks": {"type": "integer", "minimum": 1, "description": "Relink extension: the link is over after this many human clicks."},
                  "expiredLink": {"type": "string", "description": "Relink extension: where clicks go once the link is over (else 410)."}
                }
              },
              "DynamicLinkInfo": {
                "type": "object",
                "description": "Exactly one of domainUriPrefix and dynamicLinkDomain.",
                "properties": {
                  "domainUriPrefix": {"type": "string"},
                  "dynamicLinkDomain": {"type": "string", "description": "Legacy: a host."},
                  "link": {"type": "string"},
                  "androidInfo": {"type": "object", "properties": {"androidPackageName": {"type": "string"}, "androidFallbackLink": {"type": "string"}, "androidMinPackageVersionCode": {"type": "string"}, "androidLink": {"type": "string"}}},
                  "iosInfo": {"type": "object", "properties": {"iosBundleId": {"type": "string"}, "iosFallbackLink": {"type": "string"}, "iosCustomScheme": {"type": "string"}, "iosIpadFallbackLink": {"type": "string"}, "iosIpadBundleId": {"type": "string"}, "iosAppStoreId": {"type": "string"}, "iosMinimumVersion": {"type": "string"}}},
                  "navigationInfo": {"type": "object", "properties": {"enableForcedRedirect": {"type": "boolean"}}},
                  "analyticsInfo": {"type": "object", "properties": {
                    "googlePlayAnalytics": {"type": "object", "properties": {"utmSource": {"type": "string"}, "utmMedium": {"type": "string"}, "utmCampaign": {"type": "string"}, "utmTerm": {"type": "string"}, "utmContent": {"type": "string"}, "gclid": {"type": "string", "deprecated": true}}},
                    "itunesConnectAnalytics": {"type": "object", "properties": {"at": {"type": "string"}, "ct": {"type": "string"}, "mt": {"type": "string"}, "pt": {"type": "string"}}}}},
                  "socialMetaTagInfo": {"type": "object", "properties": {"socialTitle": {"type": "string"}, "socialDescription": {"type": "string"}, "socialImageLink": {"type": "string"}}},
                  "desktopInfo": {"type": "object", "properties": {"desktopFallbackLink": {"type": "string"}}}
                }
              },
              "Warning": {"type": "object", "required": ["warningCode", "warningMessage"], "properties": {"warningCode": {"type": "string"}, "warningMessage": {"type": "string"}, "warningDocumentLink": {"type": "string"}}},
              "CreateShortLinkResponse": {
                "type": "object", "required": ["shortLink", "previewLink", "warning"],
                "properties": {"shortLink": {"type": "string"}, "previewLink": {"type": "string"}, "warning": {"type": "array", "items": {"$ref": "#/components/schemas/Warning"}}}
              },
              "LinkStatsResponse": {
                "type": "object", "required": ["linkEventStats"],
                "properties": {"linkEventStats": {"type": "array", "items": {"type": "object", "required": ["platform", "event", "count"], "properties": {
                  "platform": {"type": "string", "enum": ["ANDROID", "IOS", "DESKTOP", "OTHER", "CRAWLER"]},
                  "event": {"type": "string", "enum": ["CLICK", "REDIRECT", "APP_INSTALL", "APP_FIRST_OPEN", "APP_RE_OPEN"]},
                  "count": {"type": "string", "description": "An int64 as a string."}}}}}
              },
              "ManagedLink": {
                "type": "object", "required": ["shortLink", "previewLink", "longDynamicLink", "project", "suffixOption", "disabled", "createTime", "updateTime"],
                "properties": {
                  "shortLink": {"type": "string"}, "previewLink": {"type": "string"}, "longDynamicLink": {"type": "string"},
                  "project": {"type": "string"}, "suffixOption": {"type": "string", "enum": ["UNGUESSABLE", "SHORT", "CUSTOM"]},
                  "disabled": {"type": "boolean"}, "expireTime": {"type": "string", "format": "date-time"},
                  "createTime": {"type": "string", "format": "date-time"}, "updateTime": {"type": "string", "format": "date-time"},
                  "fetchPreview": {"type": "boolean", "description": "Its card is filled from its destination page (its own setting or its project's)."},
                  "preview": {"type": "object", "required": ["fetchTime"], "properties": {
                    "title": {"type": "string"}, "description": {"type": "string"}, "imageLink": {"type": "string"}, "pageLink": {"type": "string"},
                    "fetchTime": {"type": "string", "format": "date-time"}, "failure": {"type": "string", "description": "Why the last fetch gave no card."}}}
                }
              },
              "Webhook": {
                "type": "object", "required": ["id", "url", "events", "createTime"],
                "properties": {"id": {"type": "string"}, "url": {"type": "string"}, "events": {"type": "array", "items": {"type": "string"}}, "createTime": {"type": "string", "format": "date-time"}, "secret": {"type": "string", "description": "Only in the answer that created it."}}
              },
              "LinkListResponse": {
                "type": "object", "required": ["links"],
                "properties": {"links": {"type": "array", "items": {"$ref": "#/components/schemas/ManagedLink"}}, "nextPageToken": {"type": "string"}}
              },
              "InstallAttributionRequest": {
                "type": "object", "required": ["bundleId"],
                "properties": {
                  "bundleId": {"type": "string", "description": "The app's bundle ID (iOS) or package name (Android)."},
                  "iosVersion": {"type": "string"}, "sdkVersion": {"type": "string"},
                  "appInstallationTime": {"type": ["integer", "string"], "description": "When the app was installed, epoch seconds (or milliseconds): the delay from a click to it is evidence."},
                  "uniqueMatchLinkToCheck": {"type": "string", "description": "The clipboard's claim link, …?rc=<click id>&_icp=1."},
                  "device": {"type": "object", "properties": {
                    "screenResolutionHeight": {"type": ["integer", "string"]}, "screenResolutionWidth": {"type": ["integer", "string"]},
                    "languageCode": {"type": "string"}, "languageCodeRaw": {"type": "string"}, "languageCodeFromWebview": {"type": "string"},
                    "timezone": {"type": "string"}, "deviceModelName": {"type": "string"}}},
                  "retrievalMethod": {"type": ["string", "integer"]}, "visualStyle": {"type": ["string", "integer"]},
                  "platform": {"type": "string", "enum": ["IOS", "ANDROID"], "default": "IOS"},
                  "installReferrer": {"type": "string", "description": "The Play install referrer (relink_click=…&utm_source=…)."},
                  "installId": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,128}$", "description": "Generated once per install; retries get the same answer."},
                  "osVersion": {"type": "string", "description": "Build.VERSION.RELEASE on Android."}
                }
              },
              "InstallAttributionResponse": {
                "type": "object", "required": ["matchMessage", "invitationId", "isStrongMatchExecutable"],
                "properties": {
                  "deepLink": {"type": "string"}, "attributionConfidence": {"type": "string", "enum": ["UNIQUE", "DEFAULT", "WEAK"]},
                  "matchMessage": {"type": "string"}, "requestedLink": {"type": "string"}, "resolvedLink": {"type": "string"},
                  "utmSource": {"type": "string"}, "utmMedium": {"type": "string"}, "utmCampaign": {"type": "string"},
                  "utmContent": {"type": "string"}, "utmTerm": {"type": "string"}, "appMinimumVersion": {"type": "string"},
                  "requestIpVersion": {"type": "string", "enum": ["IP_V4", "IP_V6"]}, "fallbackLink": {"type": "string"},
                  "invitationId": {"type": "string"}, "isStrongMatchExecutable": {"type": "boolean"},
                  "debug": {"$ref": "#/components/schemas/AttributionDebug"}
                }
              },
              "AttributionDebug": {
                "type": "object", "required": ["method", "note"],
                "description": "Only with the project's deferred.debug on. Candidates are named #1, #2, … by likelihood, never by id.",
                "properties": {
                  "method": {"type": "string", "enum": ["token", "fingerprint"]}, "note": {"type": "string"},
                  "install": {"type": "object", "properties": {
                    "addressKnown": {"type": "boolean"}, "osVersion": {"type": "string"}, "device": {"type": "string"},
                    "languages": {"type": "array", "items": {"type": "string"}}, "screen": {"type": "string"}, "timeZone": {"type": "string"},
                    "installedSecondsBeforeClaim": {"type": "integer"}, "windowSeconds": {"type": "integer"}}},
                  "assessment": {"type": "object", "properties": {
                    "candidates": {"type": "array", "items": {"type": "object", "properties": {
                      "click": {"type": "string"}, "secondsBeforeInstall": {"type": "integer"}, "sameAddress": {"type": "boolean"},
                      "sameNetwork": {"type": "boolean"}, "weaklyClaimed": {"type": "boolean"}, "posterior": {"type": "number"},
                      "excluded": {"type": "string"},
                      "evidence": {"type": "array", "items": {"type": "object", "properties": {
                        "signal": {"type": "string"}, "agrees": {"type": "boolean"}, "ratio": {"type": "number"}}}}}}},
                    "noneOfThem": {"type": "number"}, "expectedStrangersAtAddress": {"type": "number"}, "click": {"type": "string"},
                    "confidence": {"type": "string", "enum": ["UNIQUE", "DEFAULT", "WEAK"]}, "message": {"type": "string"}}}
                }
              },
              "DeferredClicksResponse": {
                "type": "object", "required": ["clicks"],
                "properties": {"clicks": {"type": "array", "items": {"type": "object", "required": ["ref", "platform", "clickedAt", "languages"], "properties": {
                  "ref": {"type": "string", "description": "A one-way handle of the click (not its id)."}, "platform": {"type": "string", "enum": ["IOS", "ANDROID"]}, "clickedAt": {"type": "string", "format": "date-time"},
                  "osVersion": {"type": "string"}, "device": {"type": "string"}, "languages": {"type": "array", "items": {"type": "string"}},
                  "screen": {"type": "string"}, "timeZone": {"type": "string"}, "claimedAt": {"type": "string", "format": "date-time"},
                  "confidence": {"type": "string", "enum": ["UNIQUE", "DEFAULT", "WEAK"]}}}}}
              },
              "ReopenAttributionRequest": {
                "type": "object",
                "properties": {"requestedLink": {"type": "string"}, "bundle_id": {"type": "string"}, "bundleId": {"type": "string"}, "sdk_version": {"type": "string"}, "sdkVersion": {"type": "string"}}
              },
              "ReopenAttributionResponse": {
                "type": "object", "required": ["deepLink", "invitationId", "resolvedLink"],
                "properties": {
                  "deepLink": {"type": "string"}, "invitationId": {"type": "string"}, "iosMinAppVersion": {"type": "string"},
                  "resolvedLink": {"type": "string"}, "utmSource": {"type": "string"}, "utmMedium": {"type": "string"},
                  "utmCampaign": {"type": "string"}, "utmContent": {"type": "string"}, "utmTerm": {"type": "string"}
                }
              },
              "UpdateLinkRequest": {
                "type": "object",
                "properties": {
                  "longDynamicLink": {"type": "string", "description": "A new long link on the short link's own domain."},
                  "dynamicLinkInfo": {"$ref": "#/components/schemas/DynamicLinkInfo"},
                  "disabled": {"type": "boolean", "description": "A disabled link answers 410."},
                  "expireTime": {"type": "string", "description": "RFC 3339; the link answers 410 after it. \"\" removes it."},
                  "fetchPreview": {"type": "boolean", "description": "Fill the link-preview card from the destination page, or stop."}
                }
              }
            }
          }
        }
        """#
}
