import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import NIOHTTP1
import RelinkCore
import RelinkStore
import ServiceLifecycle
import Testing

@testable import RelinkServer
@testable import RelinkTools

/// The console over the router: sign-in and sessions, CSRF on every form, one project per key, links, stats and
/// QR codes through the API's own services.
@Suite("Console") struct ConsoleTests {
    /// A signed-in browser: its cookies and the session's CSRF token.
    struct Browser {
        var cookie: String
        var csrf: String

        var headers: HTTPFields { [.cookie: cookie] }

        func form(_ fields: [(String, String)], csrf: String? = nil, extra: HTTPFields = [:]) -> (HTTPFields, ByteBuffer) {
            var headers: HTTPFields = [.cookie: cookie, .contentType: "application/x-www-form-urlencoded"]
            headers.append(contentsOf: extra)
            let all = (csrf.map { [("csrf", $0)] } ?? []) + fields
            let body = all.map { "\(PercentEncoding.encodeComponent($0.0))=\(PercentEncoding.encodeComponent($0.1))" }.joined(separator: "&")
            return (headers, ByteBuffer(string: body))
        }
    }

    static func csrf(in html: String) -> String? {
        html.firstMatch(of: /name="csrf" value="([^"]+)"/).map { String($0.1) }
    }

    static func cookie(_ name: String, in response: TestResponse) -> String? {
        response.headers[values: .setCookie].first { $0.hasPrefix(name + "=") }
    }

    static func value(of setCookie: String) -> String {
        String(setCookie.split(separator: ";")[0])
    }

    static func signIn(
        _ key: String, client: some TestClientProtocol, headers extra: HTTPFields = [:], secure: Bool = false
    ) async throws
        -> Browser
    {
        let form = try await client.execute(uri: "/console/sign-in", method: .get, headers: extra)
        #expect(form.status == .ok)
        let preSession = try #require(Self.cookie((secure ? "__Host-" : "") + "relink_console_signin", in: form))
        let token = try #require(Self.csrf(in: form.text))
        var headers: HTTPFields = [.cookie: Self.value(of: preSession), .contentType: "application/x-www-form-urlencoded"]
        headers.append(contentsOf: extra)
        let response = try await client.execute(
            uri: "/console/sign-in", method: .post, headers: headers,
            body: ByteBuffer(string: "csrf=\(token)&key=\(PercentEncoding.encodeComponent(key))"))
        #expect(response.status == .seeOther, "\(response.text)")
        let session = try #require(Self.cookie((secure ? "__Host-" : "") + "relink_console", in: response))
        var pageHeaders: HTTPFields = [.cookie: Self.value(of: session)]
        pageHeaders.append(contentsOf: extra)
        let page = try await client.execute(uri: "/console/links", method: .get, headers: pageHeaders)
        #expect(page.status == .ok)
        return Browser(cookie: Self.value(of: session), csrf: try #require(Self.csrf(in: page.text)))
    }

    static func consoleApp(store: SQLiteStore, trustForwardedHeaders: Bool = false) throws -> some ApplicationProtocol {
        try TestSupport.application(trustForwardedHeaders: trustForwardedHeaders, store: store)
    }

    @Test func signInGivesAStrictHttpOnlySessionAndSignOutEndsIt() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store, trustForwardedHeaders: true).test(.router) { client in
            // Anonymous pages go to the sign-in form; anonymous forms are refused.
            let anonymous = try await client.execute(uri: "/console/links", method: .get)
            #expect(anonymous.status == .seeOther && anonymous.location == "/console/sign-in")
            let form = try await client.execute(uri: "/console/sign-in", method: .get)
            #expect(form.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(form.headers[.contentSecurityPolicy]?.contains("form-action 'self'") == true)
            // A wrong key: 401 and the form again, never a session.
            let preSession = try #require(Self.cookie("relink_console_signin", in: form))
            let wrong = try await client.execute(
                uri: "/console/sign-in", method: .post,
                headers: [.cookie: Self.value(of: preSession), .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(try #require(Self.csrf(in: form.text)))&key=rl_wrong"))
            #expect(wrong.status == .unauthorized)
            #expect(Self.cookie("relink_console", in: wrong) == nil)
            #expect(wrong.text.contains("not valid"))

            let response = try await client.execute(
                uri: "/console/sign-in", method: .post,
                headers: [.cookie: Self.value(of: preSession), .contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(try #require(Self.csrf(in: form.text)))&key=\(key)"))
            let session = try #require(Self.cookie("relink_console", in: response))
            let sessionAttributes = Set(session.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(sessionAttributes.isSuperset(of: ["HttpOnly", "SameSite=Strict", "Path=/console"]))
            #expect(!session.contains("Secure"))
            // The session id is kept only as its hash.
            let id = String(Self.value(of: session).dropFirst("relink_console=".count))
            #expect(try await store.consoleSession(idHash: ConsoleSessionDriver.idHash("console." + id), now: Date()) != nil)
            #expect(try await store.consoleSession(idHash: id, now: Date()) == nil)

            // Over https (as a trusted proxy says), the cookies are Secure and __Host- (path /, no domain): no sibling
            // subdomain or other port can plant one.
            let https: HTTPFields = [HTTPField.Name("X-Forwarded-Proto")!: "https"]
            let secure = try await Self.signIn(key, client: client, headers: https, secure: true)
            #expect(secure.cookie.hasPrefix("__Host-relink_console="))
            let overTLS = try await client.execute(uri: "/console/sign-in", method: .get, headers: https)
            let signInCookie = try #require(Self.cookie("__Host-relink_console_signin", in: overTLS))
            // Attributes come in no fixed order.
            let attributes = Set(signInCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            #expect(attributes.contains("Secure") && attributes.contains("Path=/") && !attributes.contains { $0.hasPrefix("Domain") })
            // The plain-http cookie is not a session over https.
            var plainOverTLS = https
            plainOverTLS[.cookie] = Self.value(of: session)
            #expect(try await client.execute(uri: "/console/links", method: .get, headers: plainOverTLS).status == .seeOther)

            let browser = Browser(
                cookie: Self.value(of: session),
                csrf: try #require(
                    Self.csrf(
                        in: try await client.execute(
                            uri: "/console/links", method: .get, headers: [.cookie: Self.value(of: session)]
                        ).text)))
            let (headers, body) = browser.form([], csrf: browser.csrf)
            let out = try await client.execute(uri: "/console/sign-out", method: .post, headers: headers, body: body)
            #expect(out.status == .seeOther && out.location == "/console/sign-in")
            #expect(
                Self.cookie("relink_console", in: out)?.contains("Max-Age=0") == true
                    || Self.cookie("relink_console", in: out)?.contains("Expires") == true)
            let after = try await client.execute(uri: "/console/links", method: .get, headers: browser.headers)
            #expect(after.status == .seeOther)
        }
    }

    /// Signing out while the store cannot end the session (another process holds its write lock) still clears the
    /// browser's cookie, with the 503 page saying so; the session had stayed in the browser.
    @Test func signingOutDuringAnOutageClearsTheBrowsersCookie() async throws {
        let (folder, store, key, other) = try await DeferredLinkAttackTests.lockableStore()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await Self.consoleApp(store: store).test(.router) { client in
            let browser = try await Self.signIn(key, client: client)
            let (release, locked) = DeferredLinkAttackTests.holdExclusiveLock(other)
            let (headers, body) = browser.form([], csrf: browser.csrf)
            let out = try await client.execute(uri: "/console/sign-out", method: .post, headers: headers, body: body)
            release.signal()
            locked.wait()
            #expect(out.status == .serviceUnavailable)
            #expect(out.text.contains("Signed out of this browser"))
            let cleared = try #require(Self.cookie("relink_console", in: out))
            #expect(cleared.hasPrefix("relink_console=;") && cleared.contains("Max-Age=0") && cleared.contains("HttpOnly"), "\(cleared)")
        }
    }

    @Test func formsRefuseRequestsWithoutTheCSRFToken() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store).test(.router) { client in
            let minted = try await TestSupport.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa", key: key, with: client)
            let code = String(minted.shortLink.split(separator: "/").last!)
            let browser = try await Self.signIn(key, client: client)
            let newLink: [(String, String)] = [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/forged")]
            let routes: [(String, [(String, String)])] = [
                ("/console/links", newLink), ("/console/links/validate", newLink), ("/console/links/\(code)", newLink),
                ("/console/links/\(code)/disable", []), ("/console/links/\(code)/enable", []), ("/console/sign-out", []),
            ]
            for (path, fields) in routes {
                for (token, extra) in [
                    (nil, HTTPFields()), ("", HTTPFields()), ("wrong-token", HTTPFields()),
                    (String(browser.csrf.dropLast()), HTTPFields()),
                    // The right token, from another site: refused too.
                    (browser.csrf, HTTPFields([HTTPField(name: HTTPField.Name("Sec-Fetch-Site")!, value: "cross-site")])),
                ] as [(String?, HTTPFields)] {
                    let (headers, body) = browser.form(fields, csrf: token, extra: extra)
                    let response = try await client.execute(uri: path, method: .post, headers: headers, body: body)
                    #expect(response.status == .forbidden, "\(path) with token \(token ?? "none") answered \(response.status)")
                }
            }
            // Nothing changed: the link is as minted, no other link exists, the session still works.
            let links = try await store.links(projectId: "pictlink", beforeId: nil, limit: 10)
            #expect(links.count == 1 && !links[0].disabled && links[0].parameters[.link] == "https://pictlink.com/a")
            #expect(try await client.execute(uri: "/console/links", method: .get, headers: browser.headers).status == .ok)
            // The sign-in form's own token: a sign-in without it (login CSRF), or with a cookie and field that merely
            // agree but that this service never issued, or issued and tampered with, is refused.
            let issued = try await client.execute(uri: "/console/sign-in", method: .get)
            let token = try #require(Self.csrf(in: issued.text))
            let tampered = String(token.dropLast()) + (token.hasSuffix("A") ? "B" : "A")
            for (cookie, field) in [(nil, "x"), ("x", "x"), (token, "other"), (tampered, tampered), ("1." + token, "1." + token)]
                as [(String?, String)]
            {
                var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
                if let cookie { headers[.cookie] = "relink_console_signin=\(cookie)" }
                let forged = try await client.execute(
                    uri: "/console/sign-in", method: .post, headers: headers, body: ByteBuffer(string: "csrf=\(field)&key=\(key)"))
                #expect(forged.status == .forbidden && Self.cookie("relink_console", in: forged) == nil, "\(cookie ?? "-") \(field)")
            }
            // An issued token posted from another origin is refused too.
            let foreign = try await client.execute(
                uri: "/console/sign-in", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded", .cookie: "relink_console_signin=\(token)", .origin: "https://evil.example",
                ], body: ByteBuffer(string: "csrf=\(token)&key=\(key)"))
            #expect(foreign.status == .forbidden)
            let (originHeaders, originBody) = browser.form(
                [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/x")], csrf: browser.csrf,
                extra: [.origin: "https://evil.example"])
            #expect(try await client.execute(uri: "/console/links", method: .post, headers: originHeaders, body: originBody).status == .forbidden)
            // The origin itself, in another ASCII case or with its host's final dot, is the same origin; a look-alike
            // in Unicode case (U+212A KELVIN SIGN) or with two dots is not.
            let sameOrigins = [
                ("go.pictlink.com.", "http://go.pictlink.com"), ("go.pictlink.com", "http://GO.PICTLINK.COM."),
                ("GO.pictlink.com.", "HTTP://go.pictlink.com"),
            ]
            let defaultPorts = [
                ("go.pictlink.com:80", "http://go.pictlink.com"), ("go.pictlink.com", "http://go.pictlink.com:80"),
                ("go.pictlink.com.:80", "http://go.pictlink.com.:80"),
            ]
            let otherOrigins = [
                ("go.pictlink.com", "http://go.pictlink.com:8080"), ("go.pictlink.com:8080", "http://go.pictlink.com"),
                ("go.pictlink.com", "http://go.pictlin\u{212A}.com"), ("go.pictlink.com", "http://go.pictlink.com.."), ("go.pictlink.com", "null"),
                ("go.pictlink.com", "https://go.pictlink.com"),
            ]
            for (host, origin, allowed) in (sameOrigins + defaultPorts).map({ ($0, $1, true) }) + otherOrigins.map({ ($0, $1, false) }) {
                let (headers, body) = browser.form(newLink, csrf: browser.csrf, extra: [.origin: origin, HTTPField.Name("Host")!: host])
                let status = try await client.execute(uri: "/console/links/validate", method: .post, headers: headers, body: body).status
                #expect((status != .forbidden) == allowed, "\(host) from \(origin): \(status)")
            }
            // Bytes that are not UTF-8 are refused, not replaced.
            var raw = ByteBuffer(string: "csrf=\(browser.csrf)&link=")
            raw.writeBytes([0xFF, 0xFE])
            let invalid = try await client.execute(
                uri: "/console/links/validate", method: .post,
                headers: [.cookie: browser.cookie, .contentType: "application/x-www-form-urlencoded"], body: raw)
            #expect(invalid.status == .badRequest)
            // Paths the console does not have are console 404s, with its headers, whatever the method.
            // (TRACE and the like, and a method `/console` itself does not take, were empty 404s.)
            let methods: [HTTPRequest.Method] = [.get, .post, .put, .delete, .patch, .options, .init("TRACE")!, .init("PROPFIND")!]
            for method in methods {
                for path in ["/console/nope", "/console"] where method != .get || path != "/console" {
                    let missing = try await client.execute(uri: path, method: method, headers: browser.headers)
                    #expect(
                        missing.status == .notFound && missing.headers[.contentSecurityPolicy] != nil && missing.headers[.cacheControl] == "no-store"
                            && missing.text.contains("no such page"),
                        "\(method) \(path) \(missing.status) \(missing.headers)")
                }
            }
            let put = try await client.execute(uri: "/console/links/\(code)", method: .put, headers: browser.headers)
            #expect(put.status.code >= 400 && put.status.code < 500 && put.headers[.contentSecurityPolicy] != nil)
            // A form that is not a form.
            let json = try await client.execute(
                uri: "/console/links", method: .post, headers: [.cookie: browser.cookie, .contentType: "application/json"],
                body: ByteBuffer(string: "{\"csrf\":\"\(browser.csrf)\"}"))
            #expect(json.status == .badRequest)
        }
    }

    @Test func aKeySeesOnlyItsProject() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        let (other, _) = try await APIKeys.create(projectId: "fieldnotes", name: nil, in: store)
        try await Self.consoleApp(store: store).test(.router) { client in
            let mine = try await TestSupport.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fmine", key: key, with: client)
            let theirs = try await TestSupport.mint(
                "https://go.fieldnotes.app/?link=https%3A%2F%2Ffieldnotes.app%2Fsecret-note", key: other, with: client)
            let theirCode = String(theirs.shortLink.split(separator: "/").last!)
            _ = try await client.execute(
                uri: "/\(theirCode)", method: .get, headers: TestSupport.headers(host: "go.fieldnotes.app", agent: TestSupport.Agent.iPhone))
            let browser = try await Self.signIn(key, client: client)
            let list = try await client.execute(uri: "/console/links", method: .get, headers: browser.headers)
            #expect(list.text.contains(String(mine.shortLink.split(separator: "/").last!)))
            #expect(!list.text.contains(theirCode) && !list.text.contains("secret-note"))
            let search = try await client.execute(uri: "/console/links?q=secret", method: .get, headers: browser.headers)
            #expect(!search.text.contains(theirCode))
            for suffix in ["", "/edit", "/stats", "/stats.csv", "/debug", "/qr.svg", "/qr.png", "?domain=https%3A%2F%2Fgo.fieldnotes.app"] {
                let response = try await client.execute(uri: "/console/links/\(theirCode)\(suffix)", method: .get, headers: browser.headers)
                #expect(response.status == .notFound, "\(suffix) answered \(response.status)")
                #expect(!response.text.contains("secret-note"))
            }
            for action in ["/disable", ""] {
                let (headers, body) = browser.form([("link", "https://pictlink.com/taken")], csrf: browser.csrf)
                let response = try await client.execute(uri: "/console/links/\(theirCode)\(action)", method: .post, headers: headers, body: body)
                #expect(response.status == .notFound)
            }
            // Minting on the other project's domain is refused, as on the API.
            let (headers, body) = browser.form(
                [("domain", "https://go.fieldnotes.app"), ("link", "https://fieldnotes.app/x")], csrf: browser.csrf)
            let create = try await client.execute(uri: "/console/links", method: .post, headers: headers, body: body)
            #expect(create.status == .badRequest)
            let fieldnotes = try await store.links(projectId: "fieldnotes", beforeId: nil, limit: 10)
            #expect(fieldnotes.count == 1 && !fieldnotes[0].disabled && fieldnotes[0].parameters[.link] == "https://fieldnotes.app/secret-note")
            // The project's stats leave other projects' clicks out.
            let csv = try await client.execute(uri: "/console/stats.csv", method: .get, headers: browser.headers)
            #expect(csv.status == .ok && csv.text == "date,platform,event,count\r\n")
        }
    }

    @Test func consoleTokensSignInButTheAPIRefusesThemAndRevokedKeysLoseTheirSessions() async throws {
        let store = try SQLiteStore()
        let (token, record) = try await APIKeys.create(projectId: "pictlink", name: "console", scope: .console, in: store)
        #expect(token.hasPrefix("rlc_"))
        try await Self.consoleApp(store: store).test(.router) { client in
            let api = try await client.execute(uri: "/v1/links?key=\(token)", method: .get)
            #expect(api.status == .forbidden && api.text.contains("console only"))
            let browser = try await Self.signIn(token, client: client)
            #expect(try await client.execute(uri: "/console/links", method: .get, headers: browser.headers).status == .ok)
            _ = try await store.revokeAPIKey(id: record.id)
            let after = try await client.execute(uri: "/console/links", method: .get, headers: browser.headers)
            #expect(after.status == .seeOther && after.location == "/console/sign-in")
        }
    }

    @Test func linksAreCheckedCreatedEditedAndDisabledThroughTheAPIsService() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store).test(.router) { client in
            let browser = try await Self.signIn(key, client: client)
            let fields: [(String, String)] = [
                ("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/spring"), ("ibi", "jp.furyu.pictlink.ios"),
                ("isi", "abc"), ("st", "<img src=x onerror=alert(1)> \"Spring\""),
            ]
            // The live check: the codec's warnings, as minting gives them.
            let (checkHeaders, checkBody) = browser.form(fields, csrf: browser.csrf)
            let check = try await client.execute(uri: "/console/links/validate", method: .post, headers: checkHeaders, body: checkBody)
            #expect(check.status == .ok)
            let result = try JSONSerialization.jsonObject(with: check.data) as? [String: Any]
            let warnings = (result?["warnings"] as? [[String: String]]) ?? []
            #expect(warnings.contains { $0["code"] == "NOT_NUMERIC_IOS_APP_STORE_ID" })
            let (badHeaders, badBody) = browser.form([("domain", "https://go.pictlink.com"), ("link", "javascript:alert(1)")], csrf: browser.csrf)
            let bad = try await client.execute(uri: "/console/links/validate", method: .post, headers: badHeaders, body: badBody)
            #expect(((try JSONSerialization.jsonObject(with: bad.data) as? [String: Any])?["errors"] as? [String])?.isEmpty == false)

            let (headers, body) = browser.form(fields + [("customSuffix", "spring")], csrf: browser.csrf)
            let created = try await client.execute(uri: "/console/links", method: .post, headers: headers, body: body)
            #expect(created.status == .seeOther)
            let location = try #require(created.location)
            #expect(location.hasPrefix("/console/links/spring"))
            let page = try await client.execute(uri: location, method: .get, headers: browser.headers)
            #expect(page.text.contains("https://go.pictlink.com/spring") && page.text.contains("NOT_NUMERIC_IOS_APP_STORE_ID"))
            #expect(page.text.contains("Link created."))
            // Text from a link is escaped, never markup.
            #expect(!page.text.contains("<img src=x") && page.text.contains("&lt;img src=x onerror=alert(1)&gt; &quot;Spring&quot;"))
            // The same code again is refused with FDL's error, on the form.
            let again = try await client.execute(
                uri: "/console/links", method: .post, headers: headers,
                body: browser.form(
                    [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/other"), ("customSuffix", "spring")], csrf: browser.csrf
                ).1)
            #expect(again.status == .conflict && again.text.contains("already used"))

            // The live check knows codes as minting does: taken, reserved, malformed.
            for (suffix, problem) in [("spring", "already used"), ("console", "reserved"), ("no spaces", "1 to 64 characters")] {
                let (h, b) = browser.form(
                    [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/x"), ("customSuffix", suffix)], csrf: browser.csrf)
                let answer = try await client.execute(uri: "/console/links/validate", method: .post, headers: h, body: b)
                let errors = ((try JSONSerialization.jsonObject(with: answer.data) as? [String: Any])?["errors"] as? [String]) ?? []
                #expect(errors.contains { $0.contains(problem) }, "\(suffix): \(errors)")
            }

            let (editHeaders, editBody) = browser.form([("link", "https://pictlink.com/summer")], csrf: browser.csrf)
            let edited = try await client.execute(uri: "/console/links/spring", method: .post, headers: editHeaders, body: editBody)
            #expect(edited.status == .seeOther)
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "spring")?.parameters[.link] == "https://pictlink.com/summer")

            let (disableHeaders, disableBody) = browser.form([], csrf: browser.csrf)
            let disabled = try await client.execute(uri: "/console/links/spring/disable", method: .post, headers: disableHeaders, body: disableBody)
            #expect(disabled.status == .seeOther)
            let click = try await client.execute(uri: "/spring", method: .get, headers: TestSupport.headers(agent: TestSupport.Agent.desktop))
            #expect(click.status == .gone)
            let debug = try await client.execute(uri: "/console/links/spring/debug", method: .get, headers: browser.headers)
            #expect(debug.status == .ok && debug.text.contains("This link has been disabled."))
            _ = try await client.execute(uri: "/console/links/spring/enable", method: .post, headers: disableHeaders, body: disableBody)
            let back = try await client.execute(uri: "/spring", method: .get, headers: TestSupport.headers(agent: TestSupport.Agent.desktop))
            // Enabled again: desktop clicks go to the project's default `ofl` once more.
            #expect(back.status == .found && back.location == "https://pictlink.com", "\(back.status) \(back.location ?? "")")
            let list = try await client.execute(uri: "/console/links?q=SUMMER", method: .get, headers: browser.headers)
            #expect(list.text.contains("/console/links/spring"))
        }
    }

    /// Saving the edit form as it was loaded changes nothing, whatever the link holds: parameters the API set, spaces,
    /// line breaks a text field cannot hold.
    @Test func savingAnUntouchedEditFormChangesNothing() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store).test(.router) { client in
            let long =
                "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fmt&ibi=jp.furyu.pictlink.ios&mt=8&al=https%3A%2F%2Fpictlink.com%2Fapp"
                + "&st=%20%20lead%20trail%20%20&at=a%0D%0Ab&sd=%22quoted%22%20%26%20%3Ctagged%3E%20caf%C3%A9&utm_campaign=spring"
            let minted = try await TestSupport.mint(long, key: key, with: client)
            let code = String(minted.shortLink.split(separator: "/").last!)
            let before = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
            let browser = try await Self.signIn(key, client: client)
            let page = try await client.execute(uri: "/console/links/\(code)/edit", method: .get, headers: browser.headers)
            // What a browser posts back: each text field's value, unescaped, without line breaks.
            var fields: [(String, String)] = []
            for match in page.text.matches(of: /<input type="text" id="f-[^"]+" name="([^"]+)" value="([^"]*)"/) {
                let value = String(match.2).replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
                    .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
                    .replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(of: "\r", with: "").replacingOccurrences(of: "\n", with: "")
                fields.append((String(match.1), value))
            }
            #expect(fields.count == LinkParameter.allCases.count - 1)
            let (headers, body) = browser.form(fields, csrf: browser.csrf)
            let saved = try await client.execute(uri: "/console/links/\(code)", method: .post, headers: headers, body: body)
            #expect(saved.status == .seeOther, "\(saved.text)")
            let after = try #require(try await store.link(domain: "https://go.pictlink.com", code: code))
            #expect(after.parameters == before.parameters)
            #expect(after.longLink == before.longLink)
        }
    }

    @Test func statsAreChartsWithTablesAndCSV() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store).test(.router) { client in
            let minted = try await TestSupport.mint(
                "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa&ibi=jp.furyu.pictlink.ios", key: key, with: client)
            let code = String(minted.shortLink.split(separator: "/").last!)
            for agent in [TestSupport.Agent.iPhone, TestSupport.Agent.android, TestSupport.Agent.desktop, TestSupport.Agent.desktop] {
                _ = try await client.execute(uri: "/\(code)", method: .get, headers: TestSupport.headers(agent: agent))
            }
            let browser = try await Self.signIn(key, client: client)
            let page = try await client.execute(uri: "/console/links/\(code)/stats", method: .get, headers: browser.headers)
            #expect(page.status == .ok)
            let document = try HTMLDocument(parsing: page.text.utf8, encoding: "UTF-8")
            #expect(document.elements.filter { $0.name == "svg" && $0.attribute("role") == "img" }.count == 3)
            #expect(document.element("table", where: "id", is: "clicks-table") != nil)
            #expect(page.text.contains("<title id=\"clicks-title\">Clicks per day by platform</title>"))
            // Today's row of the table beside the chart: iOS, Android, Desktop, Other, Total.
            let today = String(APITime.format(Date()).prefix(10))
            let cells = ["1", "1", "2", "0", "4"].map { "<td class=\"num\">\($0)</td>" }.joined()
            #expect(page.text.contains("<tr><td>\(today)</td>\(cells)</tr>"))
            let csv = try await client.execute(uri: "/console/links/\(code)/stats.csv", method: .get, headers: browser.headers)
            #expect(csv.headers[.contentType]?.hasPrefix("text/csv") == true)
            #expect(csv.headers[.contentDisposition]?.hasPrefix("attachment; filename=\"\(code)-") == true)
            let rows = csv.text.split(separator: "\r\n")
            #expect(rows.first == "date,platform,event,count")
            #expect(rows.contains { $0.hasSuffix(",DESKTOP,CLICK,2") })
            let project = try await client.execute(uri: "/console/stats", method: .get, headers: browser.headers)
            #expect(project.status == .ok && project.text.contains("Stats of project pictlink"))
            for query in ["from=2026-13-01", "from=2026-11-24&to=2026-11-01", "from=2020-01-01&to=2026-01-01", "to=yesterday"] {
                let bad = try await client.execute(uri: "/console/stats?\(query)", method: .get, headers: browser.headers)
                #expect(bad.status == .badRequest, "\(query)")
            }
        }
    }

    @Test func qrCodesAreDrawnByLibqrencodeOrSayHowToInstallIt() async throws {
        let missing = QRCode.Library.load(names: ["libqrencode-that-does-not-exist.so.4"])
        #expect(missing.library == nil && missing.failure != nil)
        #expect(throws: QRCode.EncodingError.self) { try QRCode.encode("https://go.pictlink.com/a", correction: .medium, library: nil) }
        #expect(QRCode.EncodingError.libraryMissing("x").description.contains("apt-get install libqrencode4"))
        let (store, key) = try await TestSupport.storeWithKey()
        try await Self.consoleApp(store: store).test(.router) { client in
            let minted = try await TestSupport.mint("https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fa", key: key, with: client)
            let code = String(minted.shortLink.split(separator: "/").last!)
            let browser = try await Self.signIn(key, client: client)
            let svg = try await client.execute(uri: "/console/links/\(code)/qr.svg?size=300&ecc=H&download=1", method: .get, headers: browser.headers)
            let png = try await client.execute(uri: "/console/links/\(code)/qr.png?size=300", method: .get, headers: browser.headers)
            let page = try await client.execute(uri: "/console/links/\(code)", method: .get, headers: browser.headers)
            guard QRCode.Library.shared != nil else {
                // Without the library: the page and the image say how to install it.
                #expect(svg.status == .serviceUnavailable && svg.text.contains("apt-get install libqrencode4"))
                #expect(page.text.contains("apt-get install libqrencode4"))
                return
            }
            #expect(svg.status == .ok && svg.headers[.contentType]?.hasPrefix("image/svg+xml") == true)
            #expect(svg.headers[.contentDisposition] == "attachment; filename=\"\(code).svg\"")
            let document = try XMLDocument(parsing: Array(svg.text.utf8))
            let root = try #require(try document.nodes("/s:svg", namespaces: ["s": "http://www.w3.org/2000/svg"]).first)
            #expect(root.attribute("width") == "300")
            #expect(try document.nodes("//s:title", namespaces: ["s": "http://www.w3.org/2000/svg"]).first?.text == minted.shortLink)
            // The same symbol libqrencode gives for the short link, at level H.
            let symbol = try QRCode.encode(minted.shortLink, correction: .high)
            #expect(svg.text == symbol.svg(size: 300, title: minted.shortLink))
            #expect(png.status == .ok && png.headers[.contentType] == "image/png")
            #expect(Array(png.body.readableBytesView.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            // The size asked for, exactly (the IHDR's width and height); a size too small for two pixels a module
            // gives the smallest image that scans.
            func dimensions(_ response: TestResponse) -> (Int, Int) {
                let bytes = Array(response.body.readableBytesView)
                func word(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
                return (word(16), word(20))
            }
            #expect(dimensions(png) == (300, 300))
            let small = try await client.execute(uri: "/console/links/\(code)/qr.png?size=64", method: .get, headers: browser.headers)
            let minimum = (try QRCode.encode(minted.shortLink, correction: .medium).width + 2 * QRCode.quietZone) * 2
            #expect(dimensions(small) == (max(64, minimum), max(64, minimum)))
            #expect(page.text.contains("qr.svg?size=256"))
            for query in ["size=10", "size=99999", "size=abc", "size=+100", "size=1e3", "ecc=Z"] {
                let bad = try await client.execute(uri: "/console/links/\(code)/qr.svg?\(query)", method: .get, headers: browser.headers)
                #expect(bad.status == .badRequest, "\(query)")
            }
            // QR codes and stats are costly: a key gets a burst of them, then 429 with when to come back.
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<80 {
                    group.addTask {
                        try await client.execute(uri: "/console/links/\(code)/qr.svg", method: .get, headers: browser.headers)
                    }
                }
                return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == .ok || $0.status == .tooManyRequests })
            let refusal = try #require(responses.first { $0.status == .tooManyRequests })
            #expect(refusal.headers[.retryAfter].flatMap(Int.init).map { $0 >= 1 } == true)
        }
    }

    @Test func consoleOnItsOwnPortIsNotOnTheMainOne() async throws {
        let (ports, continuation) = AsyncStream<(String, Int)>.makeStream()
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: TestSupport.configuration, logLevel: .error, store: try SQLiteStore(),
            onServerRunning: { continuation.yield(("main", $0)) })
        configuration.console = .port(host: "127.0.0.1", port: 0)
        configuration.onConsoleServerRunning = { continuation.yield(("console", $0)) }
        let app = try buildApplication(configuration: configuration)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: Logger(label: "test")))
        let task = Task { try await group.run() }
        var found: [String: Int] = [:]
        for await (name, port) in ports {
            found[name] = port
            if found.count == 2 { break }
        }
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(redirectConfiguration: .disallow))
        func status(_ port: Int?, method: HTTPMethod = .GET, path: String = "/console/sign-in") async throws -> (UInt, String) {
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(try #require(port))\(path)")
            request.method = method
            request.headers.add(name: "Host", value: "go.pictlink.com")
            let response = try await http.execute(request, timeout: .seconds(10))
            return (response.status.code, String(buffer: try await response.body.collect(upTo: 1 << 20)))
        }
        let answers: Result<((UInt, String), (UInt, String), (UInt, String), [(UInt, String)]), any Error>
        do {
            var elsewhere: [(UInt, String)] = []
            for method in [HTTPMethod.POST, .GET, .HEAD] { elsewhere.append(try await status(found["console"], method: method, path: "/x")) }
            // The API is not served there either.
            elsewhere.append(try await status(found["console"], method: .POST, path: "/v1/shortLinks"))
            answers = .success(
                (
                    try await status(found["console"]), try await status(found["main"]), try await status(found["console"], method: .HEAD),
                    elsewhere
                ))
        } catch { answers = .failure(error) }
        try await http.shutdown()
        await group.triggerGracefulShutdown()
        try await task.value
        let (console, main, head, elsewhere) = try answers.get()
        #expect(console.0 == 200 && console.1.contains("name=\"csrf\""))
        #expect(main.0 == 404 && !main.1.contains("csrf"))
        // HEAD answers as GET there too (it was an empty 404).
        #expect(head.0 == 200 && head.1.isEmpty)
        // That listener serves no links: any path elsewhere, whatever the method, is a console 404 (not a link's 405, nor
        // an empty 404), HEAD without its body.
        #expect(elsewhere.map(\.0) == [404, 404, 404, 404], "\(elsewhere)")
        #expect(elsewhere[0].1.contains("no such page") && elsewhere[1].1.contains("no such page") && elsewhere[2].1.isEmpty)
        #expect(elsewhere[3].1.contains("no such page"))
    }

    @Test func consoleCanBeMovedToItsOwnPortOrTurnedOff() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, relink: TestSupport.configuration, logLevel: .error, store: store)
        configuration.console = .disabled
        try await buildApplication(configuration: configuration).test(.router) { client in
            // /console is then a link path like any other.
            let response = try await client.execute(uri: "/console/sign-in", method: .get, headers: [HTTPField.Name("Host")!: "go.pictlink.com"])
            #expect(response.status == .notFound && !response.text.contains("csrf"))
            _ = key
        }
    }

    /// Names and the archived flag, imported from FDL, show in the list and on the link page; an archived link is
    /// never plain "active"; a name typed in the new-link form is stored and shown.
    @Test func namesAndTheArchivedFlagShow() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        let imported = try await FirebaseImporterTests.run(
            [
                FirebaseImporterTests.row("Old1", archived: true, name: "Spring <b>sale</b>"),
                FirebaseImporterTests.row("New1", name: "Kept"),
            ], store: store)
        #expect(imported.imported == 2)
        try await Self.consoleApp(store: store).test(.router) { client in
            let browser = try await Self.signIn(key, client: client)
            let list = try await client.execute(uri: "/console/links", method: .get, headers: browser.headers)
            #expect(list.text.contains("<th>Name</th>"))
            #expect(list.text.contains(#"<td class="name">Spring &lt;b&gt;sale&lt;/b&gt;</td>"#), "\(list.text)")
            #expect(list.text.contains(#"<td class="state-archived">archived</td>"#))
            let old = try await client.execute(
                uri: "/console/links/Old1?domain=https%3A%2F%2Fgo.pictlink.com", method: .get, headers: browser.headers)
            #expect(old.text.contains(#"<td id="name">Spring &lt;b&gt;sale&lt;/b&gt;</td>"#), "\(old.text)")
            let state = try #require(old.text.firstMatch(of: /<td class="state-([a-z]+)" id="state">([^<]*)<span class="muted">\(([^)]*)\)/))
            #expect(state.1 == "archived" && state.2 == "archived " && state.3.contains("archived in Firebase"), "\(old.text)")
            let new = try await client.execute(
                uri: "/console/links/New1?domain=https%3A%2F%2Fgo.pictlink.com", method: .get, headers: browser.headers)
            #expect(new.text.contains(#"<td class="state-active" id="state">active</td>"#) && new.text.contains(#"<td id="name">Kept</td>"#))

            let (headers, body) = browser.form(
                [
                    ("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/named"), ("customSuffix", "named"),
                    ("name", "Autumn \"sale\" ☀️"),
                ], csrf: browser.csrf)
            let created = try await client.execute(uri: "/console/links", method: .post, headers: headers, body: body)
            #expect(created.status == .seeOther)
            #expect(try await store.link(domain: "https://go.pictlink.com", code: "named")?.name == "Autumn \"sale\" ☀️")
            let page = try await client.execute(uri: try #require(created.location), method: .get, headers: browser.headers)
            #expect(page.text.contains(#"<td id="name">Autumn &quot;sale&quot; ☀️</td>"#))
            // A name the API refuses is refused on the form, with what was typed kept.
            let (badHeaders, badBody) = browser.form(
                [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/x"), ("name", String(repeating: "n", count: 201))],
                csrf: browser.csrf)
            let refused = try await client.execute(uri: "/console/links", method: .post, headers: badHeaders, body: badBody)
            #expect(refused.status == .badRequest && refused.text.contains("at most 200 characters"))
        }
    }

    /// The new-link form: the link and app basics open, the rest folded; pickers for the project's apps; each check
    /// beside its field and the others in the summary at the top.
    @Test func theLinkFormFoldsTheAdvancedParametersOffersTheAppsAndShowsChecksBesideTheirFields() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        var parameters = LinkParameters()
        parameters[.link] = "https://pictlink.com/a"
        parameters[.isi] = "abc"
        parameters[.imv] = "x.y"
        let draft = ShortLinkDraft(
            projectId: "pictlink", domain: "https://go.pictlink.com", code: "checks", longLink: "https://go.pictlink.com/?link=x",
            parameters: parameters, suffixOption: .custom, idempotencyKey: nil, createdAt: Date())
        _ = try await store.insertLink(draft)
        try await Self.consoleApp(store: store).test(.router) { client in
            let browser = try await Self.signIn(key, client: client)
            let form = try await client.execute(uri: "/console/links/new", method: .get, headers: browser.headers).text
            for open in ["destination", "ios", "android"] { #expect(form.contains(#"<fieldset class="group" id="group-\#(open)">"#), "\(open)") }
            for folded in ["ios-more", "android-more", "other", "social", "campaign"] {
                #expect(form.contains(#"<details class="group" id="group-\#(folded)"><summary>"#), "\(folded)")
            }
            // The pickers: hidden until the script shows them, the fields typable without it.
            #expect(form.contains(#"<div class="picker" hidden><label for="ios-app">"#))
            #expect(
                form.contains(
                    #"<option data-ibi="jp.furyu.pictlink.studio" data-isi="000000002">Pictlink Studio (jp.furyu.pictlink.studio)</option>"#))
            #expect(form.contains(#"<option data-apn="jp.furyu.pictlink.android">Pictlink (jp.furyu.pictlink.android)</option>"#))
            #expect(form.contains(#"<input type="text" id="name" name="name" value="" maxlength="200">"#))
            // The summary, with its button, comes before the first field.
            let summary = try #require(form.range(of: #"<ul class="checks" id="checks""#))
            let firstField = try #require(form.range(of: #"id="f-link""#))
            #expect(summary.lowerBound < firstField.lowerBound && form.range(of: #"id="save""#)!.lowerBound < firstField.lowerBound)

            // A stored link's checks: each beside its field (its folded group opened), none in the summary.
            let edit = try await client.execute(
                uri: "/console/links/checks/edit?domain=https%3A%2F%2Fgo.pictlink.com", method: .get, headers: browser.headers)
            let isi = try #require(edit.text.firstMatch(of: /<ul class="checks field-checks" id="checks-isi" aria-live="polite">(.*?)<\/ul>/))
            #expect(isi.1.contains("NOT_NUMERIC_IOS_APP_STORE_ID"), "\(edit.text)")
            #expect(edit.text.contains(#"<details class="group" id="group-ios-more" open>"#))
            #expect(edit.text.contains(#"<details class="group" id="group-social"><summary>"#))
            let top = try #require(edit.text.firstMatch(of: /<ul class="checks" id="checks" aria-live="polite">(.*?)<\/ul>/))
            #expect(!top.1.contains("NOT_NUMERIC_IOS_APP_STORE_ID"), "\(top.1)")

            // The live check says which field each warning is about.
            let (checkHeaders, checkBody) = browser.form(
                [("domain", "https://go.pictlink.com"), ("link", "https://pictlink.com/a"), ("isi", "abc")], csrf: browser.csrf)
            let check = try await client.execute(uri: "/console/links/validate", method: .post, headers: checkHeaders, body: checkBody)
            let warnings = ((try JSONSerialization.jsonObject(with: check.data) as? [String: Any])?["warnings"] as? [[String: String]]) ?? []
            #expect(warnings.contains { $0["code"] == "NOT_NUMERIC_IOS_APP_STORE_ID" && $0["parameter"] == "isi" }, "\(warnings)")
        }
    }

    /// Editing a link in the console never drops a parameter: the form has a field for each one a link keeps.
    @Test func theLinkFormHasAFieldForEveryStoredParameter() {
        let fields = Set(LinkFormFields.groups.flatMap(\.fields).map(\.parameter))
        #expect(fields == Set(LinkParameter.allCases).subtracting([.d]))
        var parameters = LinkParameters()
        for parameter in LinkParameter.allCases where parameter != .d { parameters[parameter] = "v-\(parameter.name)" }
        let values = Dictionary(uniqueKeysWithValues: LinkFormFields.page(parameters).flatMap(\.fields).map { ($0.name, $0.value) })
        #expect(LinkFormFields.parameters(from: values) == parameters)
    }

    @Test func everyConsoleTagIsAProperty() throws {
        let user = ConsolePageUser(project: "p", csrf: "c")
        let warning = ConsoleLinkFormPage.Warning(code: "c", message: "m", parameter: "p")
        let option = ConsoleLinkFormPage.Option(value: "v", label: "l", selected: true)
        let chart = StatsChart.stackedBars(
            id: "c", title: "t", days: ["d"], series: [StatsChart.Series(name: "n", style: "s", swatch: "b", values: [1])])
        let project = TestSupport.configuration.projects[0]
        var parameters = LinkParameters()
        parameters[.link] = "https://pictlink.com/a"
        parameters[.isi] = "abc"
        parameters[.ofl] = "https://evil.test/"
        let record = ShortLinkRecord(
            id: 1, projectId: project.id, domain: project.domains[0].description, code: "a", longLink: "l", parameters: parameters,
            suffixOption: .short, idempotencyKey: nil, disabled: false, expiresAt: nil, createdAt: Date(), updatedAt: Date())
        var link = ResolvedShortLink(record: record, project: project, prefix: project.domains[0]).link
        link.isDebug = true
        guard case .debug(var report) = RedirectPlanner.plan(link, project: project, client: DetectedClient(platform: .desktop)) else {
            Issue.record("no debug report")
            return
        }
        report.stateNotes = ["s"]
        report.ruleNotes = ["r"]
        let samples: [(ConsoleRenderer.Page, any ConsolePageModel)] = [
            (.signIn, ConsoleSignInPage(notices: ["n"], csrf: "c", error: "e", qrMissing: "q")),
            (
                .links,
                ConsoleLinksPage(
                    user: user, notices: ["n"], query: "q",
                    links: [.init(code: "c", domain: "d", href: "h", name: "n", destination: "d", state: "s", clicks: "1", created: "c")],
                    empty: false,
                    firstHref: "f", nextHref: "n")
            ),
            (
                .linkForm,
                ConsoleLinkFormPage(
                    title: "t", heading: "h", user: user, csrf: "c", notices: ["n"], isNew: true, action: "a", button: "b", domain: "d",
                    shortLink: "s", domains: [option], suffixes: [option], customSuffix: "c", name: "n",
                    groups: [
                        .init(
                            id: "i", legend: "l", fields: [.init(name: "n", label: "l", help: "h", value: "v", required: true, warnings: [warning])],
                            folded: true, open: true,
                            picker: .init(id: "i", label: "l", apps: [.init(label: "l", fills: [.init(parameter: "ibi", value: "v")])]))
                    ], errors: ["e"], hasErrors: true, warnings: [warning])
            ),
            (
                .link,
                ConsoleLinkPage(
                    title: "t", user: user, csrf: "c", notices: ["n"], code: "c", shortLink: "s", name: "n", state: "s", stateNote: "n",
                    destination: "d", clicks: "1",
                    created: "c", updated: "u", parameters: [.init(name: "n", value: "v")], warnings: [warning], hasWarnings: true, editHref: "e",
                    statsHref: "s", debugHref: "d", toggleHref: "t", toggleLabel: "l", qrPreviewHref: "q", qrSVGAction: "s", qrPNGAction: "p",
                    domainField: "d", qrMissing: "m")
            ),
            (
                .stats,
                ConsoleStatsPage(
                    title: "t", heading: "h", user: user, notices: ["n"], action: "a", from: "f", to: "t", csvHref: "c", confidenceCSVHref: "c",
                    totals: [.init(label: "l", value: "v")], charts: [chart])
            ),
            (.debug, ConsoleDebugPage(title: "t", user: user, notices: ["n"], report: DebugPage(report), back: "b")),
            (
                .message,
                ConsoleMessagePage(title: "t", heading: "h", user: user, notices: ["n"], paragraphs: ["p"], back: "b", backLabel: "l")
            ),
        ]
        #expect(Set(samples.map(\.0)) == Set(ConsoleRenderer.Page.allCases))
        for (page, model) in samples {
            #expect(type(of: model).page == page)
            let properties = PageModelTests.propertyNames(model)
            // The header's signed-in part reads the page's user, which the sign-in page never has.
            let userPart = try #require(ConsoleTemplates.header.firstRange(of: /\{\{#user\}\}[\s\S]*\{\{\/user\}\}/))
            for name in PageModelTests.tagNames(String(ConsoleTemplates.header[userPart])) where name != "user" {
                #expect(PageModelTests.propertyNames(user).contains(name), "ConsolePageUser has no property for {{\(name)}}")
            }
            var header = ConsoleTemplates.header
            header.removeSubrange(userPart)
            for source in [header, ConsoleTemplates.footer, page.source] {
                for name in PageModelTests.tagNames(source) where !name.hasPrefix(">") {
                    #expect(properties.contains(name), "\(type(of: model)) has no property for {{\(name)}}")
                }
            }
        }
    }
}
