import Testing

@testable import RelinkCore

@Suite("Punycode") struct PunycodeTests {
    @Test(arguments: [("mnchen-3ya", "münchen"), ("g-1ga", "gö"), ("bcher-kva", "bücher"), ("wgv71a119e", "日本語"), ("tda", "ü")])
    func decodesWhatEncodersWrite(_ encoded: String, _ name: String) {
        #expect(Punycode.decode(Substring(encoded)).map { String(String.UnicodeScalarView($0)) } == name)
        #expect(Punycode.isALabel(Substring("xn--" + encoded.uppercased())))
    }

    /// Labels browsers refuse: nothing after `xn--`, a digit past the end, a character Punycode has no digit for, a
    /// code point past Unicode's, a name that is all ASCII.
    @Test(arguments: ["xn--", "xn--abc-", "xn--9!", "xn--99999999999", "xn--zzzzzzzzzzzzzzz"])
    func refusesWhatBrowsersCannotRead(_ label: String) {
        #expect(!Punycode.isALabel(Substring(label)))
    }
}
