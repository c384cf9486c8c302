import RelinkCore
import Testing

@testable import RelinkServer

@Suite("Address hashes")
struct AddressHasherTests {
    /// Known answers (HMAC-SHA256 of a label byte, the IP version and the address's or its network's bytes, the
    /// first 128 bits in hex, computed apart from Relink): clicks kept before an upgrade are matched by these.
    @Test func hashesAreTheKeyedHMACsTheyAlwaysWere() throws {
        let hasher = AddressHasher(secrets: AddressHashSecrets(current: "a test secret of some length"))
        let v4 = try #require(hasher.hashes(of: "203.0.113.123"))
        #expect(v4 == .init(address: "57e61e0c7a8d44890f2b80856058ca15", network: "66789633e18066351024ac6993859104", version: .v4))
        let v6 = try #require(hasher.hashes(of: "2001:db8:1234:5678::abcd"))
        #expect(v6 == .init(address: "0237b91120c00ccda615875191aa88da", network: "854ab17149437dd9172389f26b405f43", version: .v6))
        #expect(hasher.hashes(of: "not an address") == nil)
        // Under a rotation, the old secret's hashes are the previous ones.
        let rotated = AddressHasher(secrets: AddressHashSecrets(current: "a newer secret of some length", previous: ["a test secret of some length"]))
        #expect(rotated.previousHashes(of: "203.0.113.123") == [v4])
        #expect(rotated.hashes(of: "203.0.113.123") != v4)
    }
}
