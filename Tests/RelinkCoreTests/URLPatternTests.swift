import Testing

@testable import RelinkCore

@Suite("Allowlist patterns")
struct URLPatternTests {
    @Test(arguments: [
        ("^https://pictlink\\.com(/.*)?$", "https://pictlink.com", true),
        ("^https://pictlink\\.com(/.*)?$", "https://pictlink.com/a/b?c=d#e", true),
        ("^https://pictlink\\.com(/.*)?$", "https://pictlink.com.evil.example/", false),
        ("^https://pictlink\\.com(/.*)?$", "https://pictlink.com@evil.example/", false),
        ("^https://pictlink\\.com(/.*)?$", "http://pictlink.com/", false),
        ("^https://pictlink\\.com(/.*)?$", "xhttps://pictlink.com/", false),
        ("^https://(www\\.)?pictlink\\.jp/.*$", "https://www.pictlink.jp/x", true),
        ("^https://(www\\.)?pictlink\\.jp/.*$", "https://pictlink.jp/", true),
        ("^https://[a-z0-9-]+\\.pictlink\\.com/.*$", "https://eu-1.pictlink.com/x", true),
        ("^https://[a-z0-9-]+\\.pictlink\\.com/.*$", "https://EU.pictlink.com/x", false),
        ("^(?i)https://PICTLINK\\.com/.*$", "https://pictlink.COM/x", true),
        ("(?i)^https://PICTLINK\\.com/.*$", "https://pictlink.COM/x", true),
        ("(?i)^https://PICTLINK\\.com/.*$", "https://pictlink.COM.evil.example/x", false),
        ("^https://a\\.com/p/\\d{3,5}$", "https://a.com/p/1234", true),
        ("^https://a\\.com/p/\\d{3,5}$", "https://a.com/p/12", false),
        ("^https://a\\.com/p/\\d{3,5}$", "https://a.com/p/123456", false),
        ("^https://a\\.com/p/\\d{3}$", "https://a.com/p/123", true),
        ("^https://a\\.com/p/\\w+$", "https://a.com/p/ab_9", true),
        ("^https://a\\.com/[^/]+$", "https://a.com/x/y", false),
        ("^https://a\\.com/(cat|dog)s?$", "https://a.com/dogs", true),
        ("^https://a\\.com/(cat|dog)s?$", "https://a.com/cow", false),
        ("^https://a\\.com/(?:x|y)+$", "https://a.com/xyxy", true),
        ("^https://a\\.com/(?P<id>[0-9]+)$", "https://a.com/42", true),
        ("^https://a\\.com/.*?$", "https://a.com/anything", true),
        ("^https://a\\.com/x{2,}$", "https://a.com/xxxxx", true),
        ("^https://a\\.com/[]x]$", "https://a.com/]", true),
        ("^https://a\\.com/[\\d.-]+$", "https://a.com/1.2-3", true),
        ("^https://a\\.com/{x}$", "https://a.com/{x}", true),
        ("^https://a\\.com/é$", "https://a.com/é", true),
        ("^https://a\\.com/.$", "https://a.com/\n", false),
        ("^$", "", true),
    ])
    func matchesTheWholeURL(pattern: String, url: String, expected: Bool) throws {
        #expect(try URLPattern(pattern).matches(url) == expected)
    }

    @Test(arguments: [
        ("https://pictlink\\.com/.*$", "start it with ^"),
        ("^https://pictlink\\.com/.*", "end it with $"),
        ("^https://pictlink\\.com/\\$", "end it with $"),
        ("^https://a\\.com/(x$", "missing ')'"),
        // Cut short: the missing `)` is what is wrong, not the missing `$`.
        ("^https://(", "missing ')'"),
        ("^https://[a-z", "missing ']'"),
        ("^https://a\\.com/x)$", "unmatched ')'"),
        ("^https://a\\.com/[x$", "missing ']'"),
        ("^https://a\\.com/(*)$", "nothing to repeat"),
        ("^*https://a\\.com/$", "nothing to repeat"),
        ("^https://a\\.com/x**$", "a quantifier cannot follow another quantifier"),
        ("^https://a\\.com/(\\w)\\1$", "not supported"),
        ("^https://a\\.com/\\bx$", "not supported"),
        ("^https://a\\.com/\\pL$", "not supported"),
        ("^https://a\\.com/(?=x)x$", "lookaround"),
        ("^https://a\\.com/x{2000}$", "above 1000"),
        ("^https://a\\.com/x{3,2}$", "bad repeat range"),
        ("^https://a\\.com/[z-a]$", "bad class range"),
        ("^https://a\\.com/[[:alpha:]]$", "POSIX"),
        ("^https://a\\.com/((((x{1000}){1000})))$", "too large"),
        ("^https://a\\.com/x(?i)$", "(?i)"),
    ])
    func rejectsBadPatterns(pattern: String, fragment: String) {
        #expect {
            try URLPattern(pattern)
        } throws: { error in
            (error as? URLPattern.SyntaxError)?.message.contains(fragment) == true
        }
    }

    /// Patterns that make backtracking engines take exponential or high-polynomial time finish at once here,
    /// because the matcher visits each state at most once per character.
    @Test(arguments: ["^(a+)+$", "^(a|a)*$", "^(.*)(.*)(.*)(.*)(.*)b$", "^(a*)*$"])
    func pathologicalPatternsAnswerCorrectly(pattern: String) throws {
        let compiled = try URLPattern(pattern)
        let input = String(repeating: "a", count: 7000) + "!"
        #expect(!compiled.matches(input))
        #expect(compiled.matches(String(repeating: "a", count: 7000)) == !pattern.hasSuffix("b$"))
    }
}
