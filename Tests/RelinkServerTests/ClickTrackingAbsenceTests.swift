import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import RelinkAPI
import RelinkCore
import Testing

@testable import RelinkServer

/// A project without `clickTracking` behaves as before the feature: an email service's tracking domain is a host
/// Relink does not serve, and a tracking URL an app reports is a link it does not know, never a request to anyone.
@Suite struct ClickTrackingAbsenceTests {
    @Test func aTrackingDomainIsUnknownWithoutClickTracking() async throws {
        #expect(TestSupport.configuration.projects.allSatisfy { $0.clickTracking.isEmpty })
        try await TestSupport.application().test(.router) { client in
            let host: HTTPFields = [HTTPField.Name("Host")!: ClickTrackingTests.trackingHost, .userAgent: TestSupport.Agent.desktop]
            #expect(try await client.execute(uri: "/uni/ls/click?upn=abc", method: .get, headers: host).status == .notFound)
            #expect(try await client.execute(uri: "/.well-known/apple-app-site-association", method: .get, headers: host).status == .notFound)
            let reopen = try await client.execute(
                uri: "/v1/reopenAttribution", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    string:
                        #"{"requestedLink": "https://\#(ClickTrackingTests.trackingHost)/uni/ls/click?upn=abc", "bundleId": "jp.furyu.pictlink.ios"}"#
                ))
            #expect(reopen.status == .notFound)
            #expect(try JSONDecoder().decode(APIErrorBody.self, from: reopen.data).error.status == "NOT_FOUND")
        }
    }
}
