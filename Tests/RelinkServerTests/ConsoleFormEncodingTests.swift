import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// A console form's text is UTF-8 whether its bytes come raw or percent-escaped: neither is stored with U+FFFD.
@Suite("Console form encoding")
struct ConsoleFormEncodingTests {
    @Test func escapedBytesThatAreNotUTF8AreRefusedAsRawOnesAre() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        try await ConsoleTests.consoleApp(store: store).test(.router) { client in
            let browser = try await ConsoleTests.signIn(key, client: client)
            let headers: HTTPFields = [.cookie: browser.cookie, .contentType: "application/x-www-form-urlencoded"]
            let fields = "csrf=\(browser.csrf)&domain=https%3A%2F%2Fgo.pictlink.com&link=https%3A%2F%2Fpictlink.com%2Fx"
            // A lone byte past ASCII, an encoded surrogate, an overlong slash, a sequence cut short, in a value or a name.
            for extra in ["name=%FF%FE", "name=%ED%A0%80", "name=%C0%AF", "name=caf%C3", "name=%C3+%A9", "na%FFme=x"] {
                let response = try await client.execute(
                    uri: "/console/links", method: .post, headers: headers, body: ByteBuffer(string: fields + "&" + extra))
                #expect(response.status == .badRequest, "\(extra)")
                #expect(response.text.contains("The form is not valid UTF-8."), "\(extra)")
            }
            #expect(try await store.links(projectId: "pictlink", beforeId: nil, limit: 10).isEmpty)
            // Escaped UTF-8 is text like any other.
            let created = try await client.execute(
                uri: "/console/links", method: .post, headers: headers, body: ByteBuffer(string: fields + "&name=caf%C3%A9+%F0%9F%98%80"))
            #expect(created.status == .seeOther, "\(created.text)")
            #expect(try await store.links(projectId: "pictlink", beforeId: nil, limit: 10).map(\.name) == ["café 😀"])
        }
    }
}
