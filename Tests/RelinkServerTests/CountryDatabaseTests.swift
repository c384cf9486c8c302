import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RelinkCore
import RelinkStore
import Testing

@testable import RelinkServer

/// The country database path of link rules: a small MaxMind-format file (Fixtures/geoip, written by the script
/// beside it) read through libmaxminddb loaded at run time. `.ci/run` installs libmaxminddb0; without it these
/// tests are skipped, and the one about a missing library still runs.
@Suite("Country database")
struct CountryDatabaseTests {
    static let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "Fixtures/geoip/countries.mmdb").path

    static let libraryAvailable: Bool = {
        if (try? CountryDatabase(path: file)) != nil { return true }
        print("note: libmaxminddb is not installed (apt-get install libmaxminddb0): the country database tests are skipped")
        return false
    }()

    @Test(.enabled(if: libraryAvailable)) func looksUpCountriesAndRegisteredCountries() throws {
        let database = try CountryDatabase(path: Self.file)
        #expect(database.country(of: "203.0.113.5") == "ES")
        #expect(database.country(of: "198.51.100.200") == "JP")
        #expect(database.country(of: "192.0.2.1") == "MX")  // only a registered country
        #expect(database.country(of: "2001:db8::42") == "BR")
        #expect(database.country(of: "::ffff:203.0.113.9") == "ES")
        #expect(database.country(of: "8.8.8.8") == nil)
        #expect(database.country(of: "not an address") == nil)
    }

    @Test func aMissingLibraryOrFileIsNamed() throws {
        #expect(throws: CountryDatabase.LoadError.self) { try CountryDatabase(path: Self.file, libraryNames: ["libnot-maxminddb.so.9"]) }
        do {
            _ = try CountryDatabase(path: Self.file, libraryNames: ["libnot-maxminddb.so.9"])
        } catch {
            #expect(error.description.hasPrefix("--geoip needs libmaxminddb, which is not installed: apt-get install libmaxminddb0"))
        }
        if Self.libraryAvailable {
            #expect(throws: CountryDatabase.LoadError.self) { try CountryDatabase(path: "/nonexistent/countries.mmdb") }
            let notADatabase = URL(fileURLWithPath: #filePath).path
            #expect(throws: CountryDatabase.LoadError.self) { try CountryDatabase(path: notADatabase) }
        }
    }

    @Test(.enabled(if: libraryAvailable)) func rulesReadTheCountryOfTheClientsAddress() async throws {
        let (store, key) = try await TestSupport.storeWithKey()
        var server = ServerConfiguration(
            host: "127.0.0.1", port: 0, relink: TestSupport.configuration, forwardedHeaders: TestSupport.trustingTestClient, logLevel: .error,
            store: store)
        server.countryDatabase = try CountryDatabase(path: Self.file)
        server.countryHeader = "CF-IPCountry"
        try await buildApplication(configuration: server).test(.router) { client in
            let rules = LinkRules(rules: [
                LinkRule(name: "Spain", when: RuleCondition(countries: ["ES"]), then: DestinationOverride(ofl: "https://pictlink.com/es")),
                LinkRule(name: "Japan", when: RuleCondition(countries: ["JP"]), then: DestinationOverride(ofl: "https://pictlink.com/jp")),
            ])
            let minted = try await client.execute(
                uri: "/v1/shortLinks?key=\(key)", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(
                    bytes: try JSONEncoder().encode(
                        CreateShortLinkRequest(longDynamicLink: "https://go.pictlink.com/?link=https%3A%2F%2Fpictlink.com%2Fgeo", rules: rules))))
            let path = String(
                try JSONDecoder().decode(CreateShortLinkResponse.self, from: minted.data).shortLink.dropFirst("https://go.pictlink.com".count))
            func location(from address: String, header: String? = nil) async throws -> String? {
                var headers = TestSupport.headers(agent: TestSupport.Agent.desktop)
                headers[HTTPField.Name("X-Forwarded-For")!] = address
                if let header { headers[HTTPField.Name("CF-IPCountry")!] = header }
                return try await client.execute(uri: path, method: .get, headers: headers).headers[.location]
            }
            #expect(try await location(from: "203.0.113.5") == "https://pictlink.com/es")
            #expect(try await location(from: "198.51.100.7") == "https://pictlink.com/jp")
            #expect(try await location(from: "8.8.8.8") == "https://pictlink.com")  // unknown: the project's desktop fallback
            // A trusted proxy's header comes first.
            #expect(try await location(from: "203.0.113.5", header: "JP") == "https://pictlink.com/jp")
        }
    }
}
