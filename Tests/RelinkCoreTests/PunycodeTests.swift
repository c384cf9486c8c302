import Testing

@testable import RelinkCore

@Suite("Punycode") struct PunycodeTests {
    @Test(arguments: [
        ("mnchen-3ya", "münchen"), ("g-1ga", "gö"), ("bcher-kva", "bücher"), ("wgv71a119e", "日本語"), ("tda", "ü"), ("strae-oqa", "straße"),
        ("hxargifdar", "ελληνικά"), ("e1afmkfd", "пример"), ("r8jz45g", "例え"),
    ])
    func decodesWhatEncodersWrite(_ encoded: String, _ name: String) {
        #expect(Punycode.decode(Substring(encoded)).map { String(String.UnicodeScalarView($0)) } == name)
        #expect(Punycode.isALabel(Substring("xn--" + encoded.uppercased())))
    }

    /// Labels browsers refuse: nothing after `xn--`, a digit past the end, a character Punycode has no digit for, a
    /// code point past Unicode's, a name that is all ASCII.
    /// Also a first delta near Int.max (it trapped), and names IDNA refuses or maps: a C1 control (`xn--a`), a
    /// noncharacter (`xn--dn32g`), an upper-case letter (`xn--wca`, Ü), a compatibility form (`xn--a-ecp`, a⒈).
    @Test(arguments: [
        "xn--", "xn--abc-", "xn--9!", "xn--99999999999", "xn--zzzzzzzzzzzzzzz", "xn--1x767205604493046e", "xn--hz767205604493046e",
        "xn--a", "xn--abc", "xn--dn32g", "xn--wca", "xn--a-ecp",
    ])
    func refusesWhatBrowsersCannotRead(_ label: String) {
        #expect(!Punycode.isALabel(Substring(label)))
    }
}
