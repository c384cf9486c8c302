import Testing

@testable import RelinkCore

@Suite("Punycode") struct PunycodeTests {
    @Test(arguments: [
        ("mnchen-3ya", "münchen"), ("g-1ga", "gö"), ("bcher-kva", "bücher"), ("wgv71a119e", "日本語"), ("tda", "ü"), ("strae-oqa", "straße"),
        ("hxargifdar", "ελληνικά"), ("e1afmkfd", "пример"), ("r8jz45g", "例え"), ("zca", "ß"), ("f9dt7l", "ᏣᎳᎩ"),
        ("mgba3gch31f060k", "نامه\u{200C}ای"), ("10cl1a0b660p", "ශ්\u{200D}රී"), ("11b2ezcs70k", "क्\u{200C}ष"),
    ])
    func decodesWhatEncodersWrite(_ encoded: String, _ name: String) {
        #expect(Punycode.decode(Substring(encoded)).map { String(String.UnicodeScalarView($0)) } == name)
        #expect(Punycode.isALabel(Substring("xn--" + encoded.uppercased())))
    }

    /// Labels browsers refuse: nothing after `xn--`, a digit past the end, a character Punycode has no digit for, a
    /// code point past Unicode's, a name that is all ASCII.
    /// Also a first delta near Int.max (it trapped), and names IDNA refuses or maps: a C1 control (`xn--a`), a
    /// noncharacter (`xn--dn32g`), an upper-case letter (`xn--wca`, Ü), a compatibility form (`xn--a-ecp`, a⒈), a
    /// leading combining mark (`xn--a-bcb`), letters case folding changes (U+0345, Cherokee small letters, U+1C80,
    /// ᾳ), the ideographic full stop (`xn--r6j`), a variation selector (`xn--a-i89h`).
    @Test(arguments: [
        "xn--", "xn--abc-", "xn--9!", "xn--99999999999", "xn--zzzzzzzzzzzzzzz", "xn--1x767205604493046e", "xn--hz767205604493046e",
        "xn--a", "xn--abc", "xn--dn32g", "xn--wca", "xn--a-ecp", "xn--a-bcb", "xn--jua", "xn--tz9ata7l", "xn--oce", "xn--23f", "xn--hsg",
        "xn--r6j", "xn--a-i89h",
    ])
    func refusesWhatBrowsersCannotRead(_ label: String) {
        #expect(!Punycode.isALabel(Substring(label)))
    }
}
