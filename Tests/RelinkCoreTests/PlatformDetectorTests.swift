import PropertyBased
import Testing

@testable import RelinkCore

@Suite("Platform detection")
struct PlatformDetectorTests {
    static let iPhoneSafari =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1"
    static let iPadSafari =
        "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.6 Mobile/15E148 Safari/604.1"
    static let androidChrome =
        "Mozilla/5.0 (Linux; Android 14; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36"
    static let macSafari =
        "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Safari/605.1.15"

    @Test(arguments: [
        (iPhoneSafari, Platform.iPhone),
        (iPadSafari, .iPad),
        (androidChrome, .android),
        (macSafari, .desktop),
        ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", .desktop),
        ("Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36", .desktop),
        ("Pictlink/3 CFNetwork/1410.0.3 Darwin/22.6.0", .iPhone),
        ("Safari/17617 CFNetwork/1474 Darwin/23.0.0 (x86_64)", .desktop),
        // iPad in desktop mode with Chrome or Edge for iOS still names its browser.
        ("Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120 Version/16.0 Safari/605.1.15", .iPad),
        // Link-preview crawlers, including those that claim a phone.
        ("facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)", .crawler),
        ("facebookexternalhit/1.1 Facebot Twitterbot/1.0", .crawler),
        ("Twitterbot/1.0", .crawler),
        ("Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)", .crawler),
        ("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)", .crawler),
        ("Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)", .crawler),
        ("WhatsApp/2.23.20.0", .crawler),
        ("TelegramBot (like TwitterBot)", .crawler),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
            .crawler
        ),
        (
            "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
            .crawler
        ),
        ("Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", .crawler),
        ("Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5", .crawler),
        ("Pinterest/0.2 (+https://www.pinterest.com/bot.html)", .crawler),
        ("Mozilla/5.0 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)", .crawler),
        ("Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)", .crawler),
        ("curl/8.4.0", .crawler),
        // Phones that are not Android or iOS, though they say so.
        (
            "Mozilla/5.0 (Mobile; Windows Phone 8.1; Android 4.0; ARM; Trident/7.0; Touch; rv:11.0; IEMobile/11.0; NOKIA; Lumia 920) like iPhone OS 7_0_3 Mac OS X AppleWebKit/537 (KHTML, like Gecko) Mobile Safari/537",
            .other
        ),
        ("Mozilla/5.0 (Mobile; LYF/F300B/LYF-F300B-001-01-34-070519; Android; rv:48.0) Gecko/48.0 Firefox/48.0 KAIOS/2.5", .other),
        ("AppleCoreMedia/1.0.0.12B466 (Apple TV; U; CPU OS 8_1 like Mac OS X; en_us)", .other),
        // A phone maker whose name ends in "bot".
        (
            "Mozilla/5.0 (Linux; Android 4.2.2; CUBOT ONE-S Build/JDQ39) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/34.0 Mobile Safari/537.36",
            .android
        ),
        ("", .other),
        ("Nokia6300/2.0 (05.00) Profile/MIDP-2.0 Configuration/CLDC-1.1", .other),
    ])
    func detectsThePlatform(userAgent: String, expected: Platform) {
        #expect(PlatformDetector.detect(userAgent: userAgent).platform == expected)
    }

    /// Hostile User-Agents built from the readers' own markers and separators: reading never fails, a version is
    /// digits joined by single dots (at most three parts), and a model lies inside the group after `Android`.
    @Test func hostileUserAgentsReadSafely() async {
        let tokens = [
            "Android", "android ", "iPhone OS ", "CPU OS ", "iOS ", " ", ";", ";;", ")", "(", " Build", "build/", "1", "17", ".", "_", "..",
            "-", "en", "en-us", "zh_Hant_TW", "K", "wv", "U", "Mobile", "Tablet", "é", "日本", "\u{0}", "\u{301}", "Pixel 7",
        ]
        let userAgents = Generator<String, Shrink.None<String>> { rng in
            (0..<Int.random(in: 0...24, using: &rng)).map { _ in tokens.randomElement(using: &rng)! }.joined()
        }
        await propertyCheck(count: 2_000, input: userAgents) { userAgent in
            for platform in [Platform.android, .iPhone, .iPad] {
                let client = PlatformDetector.addingDeviceDetails(
                    to: DetectedClient(platform: platform, inAppBrowser: nil), userAgent: userAgent)
                if let version = client.osVersion {
                    let parts = version.split(separator: ".", omittingEmptySubsequences: false)
                    #expect((1...3).contains(parts.count) && parts.allSatisfy { !$0.isEmpty && $0.utf8.allSatisfy { (48...57).contains($0) } })
                }
                if platform == .android, let model = client.deviceModel {
                    #expect(!model.isEmpty && model != "K" && !model.contains(";") && !model.contains(")"))
                    #expect(model.first != " " && model.last != " ")
                }
            }
        }
    }

    @Test func readsVersionsAndModels() {
        let iPhone = PlatformDetector.detect(userAgent: Self.iPhoneSafari, deviceDetails: true)
        #expect(iPhone.osVersion == "17.2")
        #expect(iPhone.deviceModel == "iPhone")
        #expect(iPhone.inAppBrowser == nil)
        let android = PlatformDetector.detect(userAgent: Self.androidChrome, deviceDetails: true)
        #expect(android.osVersion == "14")
        #expect(android.deviceModel == "Pixel 7")
        let old = PlatformDetector.detect(
            userAgent:
                "Mozilla/5.0 (Linux; U; Android 4.0.4; en-us; L-01E Build/IMM76D) AppleWebKit/534.30 (KHTML, like Gecko) Version/4.0 Mobile Safari/534.30",
            deviceDetails: true)
        #expect(old.osVersion == "4.0.4")
        #expect(old.deviceModel == "L-01E")
        let reduced = PlatformDetector.detect(
            userAgent: "Mozilla/5.0 (Linux; Android 10; K) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36",
            deviceDetails: true)
        #expect(reduced.deviceModel == nil)
        #expect(PlatformDetector.detect(userAgent: Self.androidChrome).osVersion == nil)
    }

    @Test(arguments: [
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/440.0.0.39.107;FBBV/540086540;FBDV/iPhone14,2;FBMD/iPhone;FBSN/iOS;FBSV/17.1;FBSS/3;FBCR/;FBID/phone;FBLC/en_US;FBOP/80]",
            Platform.iPhone, "Facebook"
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 307.0.2.28.111 (iPhone14,2; iOS 17_1; en_US; en; scale=3.00; 1170x2532; 530437442)",
            .iPhone, "Instagram"
        ),
        (
            "Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 Instagram 308.0.0.36.109 Android",
            .android, "Instagram"
        ),
        (
            "Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.20.0",
            .iPhone, "LINE"
        ),
        (
            "Mozilla/5.0 (Linux; Android 12; Pixel 6 Build/SD1A.210817.036; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/94.0.4606.71 Mobile Safari/537.36",
            .android, "WebView"
        ),
    ])
    func inAppBrowsersCountAsTheirOS(userAgent: String, platform: Platform, app: String) {
        let client = PlatformDetector.detect(userAgent: userAgent)
        #expect(client.platform == platform)
        #expect(client.inAppBrowser == app)
    }
}
