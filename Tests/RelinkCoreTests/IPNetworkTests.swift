import RelinkCore
import Testing

@Suite("IP networks")
struct IPNetworkTests {
    static func address(_ text: String) -> IPAddress { IPAddress(text)! }

    @Test func parsesCIDRAndClearsHostBits() throws {
        let network = try #require(IPNetwork("192.0.2.77/24"))
        #expect(network.address == Self.address("192.0.2.0"))
        #expect(network.prefixLength == 24)
        #expect(network.description == "192.0.2.0/24")
        let v6 = try #require(IPNetwork("2001:db8:abcd::1/33"))
        #expect(v6.address == Self.address("2001:db8:8000::"))
        #expect(v6.prefixLength == 33)
        #expect(IPNetwork("0.0.0.0/0")?.contains(Self.address("203.0.113.7")) == true)
        #expect(IPNetwork("::/0")?.contains(Self.address("2001:db8::1")) == true)
    }

    @Test func aSingleAddressIsANetworkOfOne() throws {
        let v4 = try #require(IPNetwork("203.0.113.7"))
        #expect(v4.prefixLength == 32)
        #expect(v4.contains(Self.address("203.0.113.7")))
        #expect(!v4.contains(Self.address("203.0.113.8")))
        let v6 = try #require(IPNetwork("2001:db8::1"))
        #expect(v6.prefixLength == 128)
        #expect(v6.contains(Self.address("2001:db8:0:0:0:0:0:1")))
        #expect(!v6.contains(Self.address("2001:db8::2")))
    }

    @Test func containsComparesThePrefixBitByBit() throws {
        let network = try #require(IPNetwork("172.16.0.0/12"))
        #expect(network.contains(Self.address("172.16.0.1")))
        #expect(network.contains(Self.address("172.31.255.255")))
        #expect(!network.contains(Self.address("172.32.0.0")))
        #expect(!network.contains(Self.address("172.15.255.255")))
        let unique = try #require(IPNetwork("fc00::/7"))
        #expect(unique.contains(Self.address("fd12:3456::1")))
        #expect(unique.contains(Self.address("fc00::")))
        #expect(!unique.contains(Self.address("fe80::1")))
    }

    @Test func versionsNeverMixExceptThroughTheMappedForm() throws {
        let v4 = try #require(IPNetwork("10.0.0.0/8"))
        #expect(!v4.contains(Self.address("::a00:1")))  // 10.0.0.1's bytes in an IPv4-compatible (not mapped) address
        #expect(v4.contains(Self.address("::ffff:10.1.2.3")))
        #expect(!(try #require(IPNetwork("::/0"))).contains(Self.address("10.0.0.1")))
    }

    @Test func aMappedNetworkIsItsIPv4Network() throws {
        let mapped = try #require(IPNetwork("::ffff:10.0.0.0/104"))
        #expect(mapped == IPNetwork("10.0.0.0/8"))
        #expect(mapped.contains(Self.address("10.200.0.1")))
        #expect(IPNetwork("::ffff:192.0.2.1") == IPNetwork("192.0.2.1/32"))
        #expect(IPNetwork("::ffff:10.0.0.0/95") == nil)
        #expect(IPNetwork("::ffff:10.0.0.0/129") == nil)
    }

    @Test func rejectsWhatIsNotANetwork() {
        for text in [
            "", "/8", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/+8", "10.0.0.0/8/8", "10.0.0/8", " 10.0.0.0/8",
            "10.0.0.0 /8", "10.0.0.0/ 8", "example.com/8", "fe80::1%eth0/64", "10.0.0.0/0008", "256.0.0.0/8", "1:2:3:4:5:6:7:8:9/64",
        ] {
            #expect(IPNetwork(text) == nil, "\(text)")
        }
    }

    @Test func theDefaultsAreLoopbackAndPrivate() {
        let defaults = IPNetwork.loopbackAndPrivate
        func trusted(_ text: String) -> Bool { defaults.contains { $0.contains(Self.address(text)) } }
        for text in [
            "127.0.0.1", "127.255.0.9", "10.0.0.1", "172.16.5.4", "172.31.0.1", "192.168.1.1", "::1", "fd00::1", "fc00::2",
            "::ffff:127.0.0.1", "::ffff:10.9.8.7", "::ffff:192.168.0.1",
        ] {
            #expect(trusted(text), "\(text)")
        }
        for text in ["203.0.113.7", "172.32.0.1", "192.169.0.1", "11.0.0.1", "2001:db8::1", "fe80::1", "::", "::2", "::ffff:203.0.113.7"] {
            #expect(!trusted(text), "\(text)")
        }
    }

    @Test func parsesAList() throws {
        let networks = try IPNetwork.parseList(" 10.0.0.0/8,fd00::/8 ,\t192.0.2.1").get()
        #expect(networks == [IPNetwork("10.0.0.0/8")!, IPNetwork("fd00::/8")!, IPNetwork("192.0.2.1/32")!])
        #expect(throws: IPNetwork.InvalidEntry(text: "10.0.0.0/99")) { try IPNetwork.parseList("192.0.2.0/24, 10.0.0.0/99").get() }
        #expect(throws: IPNetwork.InvalidEntry(text: "")) { try IPNetwork.parseList("10.0.0.0/8,,fd00::/8").get() }
        #expect(throws: IPNetwork.InvalidEntry(text: "")) { try IPNetwork.parseList("").get() }
        #expect(IPNetwork.InvalidEntry(text: "x/8").description == "'x/8' is not an IP address or CIDR network (like 10.0.0.0/8 or fd00::/8)")
    }

    /// As a browser writes an IPv6 address in a URL: the first longest run of zero groups as `::`, lowercase, no dotted
    /// tail.
    @Test func ipv6AsBrowsersWriteIt() {
        let cases: [(String, String)] = [
            ("0:0:0:0:0:0:0:1", "::1"), ("::1", "::1"), ("::", "::"), ("::ffff:127.0.0.1", "::ffff:7f00:1"), ("2001:DB8::1", "2001:db8::1"),
            ("2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"), ("2001:0:0:1:0:0:1:1", "2001::1:0:0:1:1"), ("2001:db8:1:1:1:1:1:0", "2001:db8:1:1:1:1:1:0"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"), ("1::", "1::"), ("0001:0db8::", "1:db8::"),
        ]
        for (text, written) in cases { #expect(IPAddress.browserIPv6Text(Substring(text)) == written, "\(text)") }
        for text in ["1.2.3.4", "x", "1:2:3", ":::"] { #expect(IPAddress.browserIPv6Text(Substring(text)) == nil, "\(text)") }
    }
}
