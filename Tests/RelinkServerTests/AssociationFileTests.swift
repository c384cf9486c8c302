import Foundation
import HTTPTypes
import HummingbirdTesting
import RelinkCore
import Testing

/// The association files, decoded the way Apple and Google document them (not with Relink's own types).
@Suite("Association files")
struct AssociationFileTests {
    typealias T = TestSupport

    /// Apple's documented `apple-app-site-association` shape.
    struct AppleFile: Decodable {
        struct AppLinks: Decodable {
            let apps: [String]
            let details: [Detail]
        }
        struct Detail: Decodable {
            let appIDs: [String]
            let components: [[String: ComponentValue]]
            let appID: String
            let paths: [String]
        }
        enum ComponentValue: Decodable, Equatable {
            case string(String)
            case bool(Bool)
            init(from decoder: any Decoder) throws {
                let container = try decoder.singleValueContainer()
                if let bool = try? container.decode(Bool.self) { self = .bool(bool) } else { self = .string(try container.decode(String.self)) }
            }
        }
        struct Apps: Decodable { let apps: [String] }
        let applinks: AppLinks
        let webcredentials: Apps?
        let appclips: Apps?
    }

    /// Google's documented Digital Asset Links statement.
    struct Statement: Decodable {
        struct Target: Decodable {
            let namespace: String
            let package_name: String
            let sha256_cert_fingerprints: [String]
        }
        let relation: [String]
        let target: Target
    }

    static func get(_ path: String, host: String = "go.pictlink.com", headers extra: HTTPFields = [:]) async throws -> TestResponse {
        let app = try T.application()
        var fields: HTTPFields = [HTTPField.Name("Host")!: host]
        fields.append(contentsOf: extra)
        let headers = fields
        return try await app.test(.router) { client in try await client.execute(uri: path, method: .get, headers: headers) }
    }

    @Test(arguments: ["/.well-known/apple-app-site-association", "/apple-app-site-association"])
    func appleFileListsEveryIOSApp(path: String) async throws {
        let response = try await Self.get(path)
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        #expect(response.headers[.location] == nil)
        #expect(response.headers[.eTag]?.hasPrefix("\"") == true)
        let file = try JSONDecoder().decode(AppleFile.self, from: response.data)
        #expect(file.applinks.apps.isEmpty)
        let expected = ["ABCDE12345.jp.furyu.pictlink.ios", "ABCDE12345.jp.furyu.pictlink.studio", "ABCDE12345.jp.furyu.pictlink.studio.ipad"]
        #expect(file.applinks.details.flatMap(\.appIDs) == expected)
        #expect(file.applinks.details.map(\.appID) == expected)
        // What Relink serves at the root to browsers and clients is left out: a console link tapped on a phone with
        // the app opens the console, not the app.
        let served = ["/console", "/v1", "/healthz", "/metrics", "/.well-known", "/apple-app-site-association"]
        typealias Value = AppleFile.ComponentValue
        let relinkPages: [String: Value] = ["/": .string("/_/*"), "exclude": .bool(true), "comment": .string("Relink pages")]
        var components: [[String: Value]] = [relinkPages]
        for path in served {
            for pattern in [path, path + "/*"] {
                components.append(["/": .string(pattern), "exclude": .bool(true), "comment": .string("Relink serves this to browsers")])
            }
        }
        components.append(["/": .string("/*")])
        for detail in file.applinks.details {
            #expect(detail.components == components)
            #expect(detail.paths == ["NOT /_/*"] + served.flatMap { ["NOT \($0)", "NOT \($0)/*"] } + ["/*"])
        }
        #expect(file.webcredentials == nil)
        #expect(file.appclips == nil)
    }

    @Test func aHostWithAPathPrefixClaimsOnlyThatPath() async throws {
        let response = try await Self.get("/.well-known/apple-app-site-association", host: "pictlink.com")
        let file = try JSONDecoder().decode(AppleFile.self, from: response.data)
        #expect(file.applinks.details[0].paths == ["NOT /links/_/*", "/links", "/links/*"])
        #expect(file.applinks.details[0].components.map { $0["/"] } == [.string("/links/_/*"), .string("/links"), .string("/links/*")])
    }

    @Test func webCredentialsAndAppClipsWhenConfigured() throws {
        var project = T.configuration.project(id: "fieldnotes")!
        project.ios[0].webCredentials = true
        project.ios[0].appClipBundleId = "app.fieldnotes.ios.Clip"
        let files = AssociationFiles.generate(for: RelinkConfiguration(projects: [project]))
        let file = try JSONDecoder().decode(AppleFile.self, from: files[0].appleAppSiteAssociation)
        #expect(file.webcredentials?.apps == ["Q7RSTUV890.app.fieldnotes.ios"])
        #expect(file.appclips?.apps == ["Q7RSTUV890.app.fieldnotes.ios.Clip"])
    }

    @Test func assetLinksListEveryPackageWithEveryFingerprint() async throws {
        let response = try await Self.get("/.well-known/assetlinks.json")
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "application/json")
        let statements = try JSONDecoder().decode([Statement].self, from: response.data)
        #expect(statements.count == 1)
        #expect(statements[0].relation == ["delegate_permission/common.handle_all_urls"])
        #expect(statements[0].target.namespace == "android_app")
        #expect(statements[0].target.package_name == "jp.furyu.pictlink.android")
        #expect(statements[0].target.sha256_cert_fingerprints == T.configuration.project(id: "pictlink")!.android[0].sha256CertFingerprints)
        #expect(statements[0].target.sha256_cert_fingerprints.count == 2)
    }

    @Test func eachHostServesItsOwnProject() async throws {
        let response = try await Self.get("/.well-known/assetlinks.json", host: "go.fieldnotes.app")
        let statements = try JSONDecoder().decode([Statement].self, from: response.data)
        #expect(statements.map(\.target.package_name) == ["app.fieldnotes.android"])
        #expect(try await Self.get("/.well-known/assetlinks.json", host: "unknown.example").status == .notFound)
    }

    @Test func revalidatesWithTheETag() async throws {
        let first = try await Self.get("/.well-known/apple-app-site-association")
        let eTag = try #require(first.headers[.eTag])
        let second = try await Self.get("/.well-known/apple-app-site-association", headers: [.ifNoneMatch: eTag])
        #expect(second.status == .notModified)
        #expect(second.bodyLength == 0)
    }

    @Test func aFileOverApplesLimitIsAConfigurationError() throws {
        var apps = ""
        for index in 0..<900 {
            apps += (index == 0 ? "" : ",") + #"{"bundleId": "com.example.app\#(index)", "teamId": "ABCDE12345"}"#
        }
        let json = #"{"projects": [{"id": "big", "domains": ["https://big.example"], "ios": [\#(apps)]}]}"#
        #expect {
            try RelinkConfiguration(json: Data(json.utf8))
        } throws: { error in
            (error as? ConfigurationError)?.description.contains("projects[0].ios: the apple-app-site-association for big.example would be") == true
        }
    }
}
