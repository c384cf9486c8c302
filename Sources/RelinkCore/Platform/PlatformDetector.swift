/// Tells iPhone, iPad, Android, desktop, crawler and other clients apart from a User-Agent.
///
/// One pass finds every token of interest; the decision then follows FDL's order of concern: anything automated
/// first (so Googlebot's Android User-Agent never reaches a store), then systems that imitate Android or iOS
/// (Windows Phone, KaiOS), then Android, iOS, other devices, desktops. Measured against the labelled corpus in
/// `Tests/RelinkCoreTests/Fixtures/user-agents.tsv` by `PlatformDetectorCorpusTests`.
public enum PlatformDetector {
    /// The platform and in-app browser; with `deviceDetails`, also the OS version and device model of mobile
    /// clients (which only deferred-link matching needs, so redirects skip that work).
    /// - Parameters:
    ///   - userAgent: the request's `User-Agent`.
    ///   - deviceDetails: also read the OS version and device model (for deferred-link matching).
    /// - Returns: the platform, and the in-app browser when the agent names one.
    public static func detect(userAgent: String, deviceDetails: Bool = false) -> DetectedClient {
        var contiguous = userAgent
        return contiguous.withUTF8 { detect(bytes: $0, userAgent: userAgent, deviceDetails: deviceDetails) }
    }

    struct Signals: OptionSet {
        let rawValue: UInt32
        static let crawler = Signals(rawValue: 1 << 0)
        static let imitator = Signals(rawValue: 1 << 1)
        static let androidOnly = Signals(rawValue: 1 << 2)
        static let appleTVOrWatch = Signals(rawValue: 1 << 3)
        static let iPad = Signals(rawValue: 1 << 4)
        static let iPhone = Signals(rawValue: 1 << 5)
        static let iOSBrowser = Signals(rawValue: 1 << 6)
        static let appleNetworking = Signals(rawValue: 1 << 7)
        static let macHardware = Signals(rawValue: 1 << 8)
        static let likeMacOSX = Signals(rawValue: 1 << 9)
        static let cpuOS = Signals(rawValue: 1 << 10)
        static let otherDevice = Signals(rawValue: 1 << 11)
        static let desktopOS = Signals(rawValue: 1 << 12)
        static let android = Signals(rawValue: 1 << 13)
        static let iOSWord = Signals(rawValue: 1 << 14)
    }

    enum TokenKind: Sendable {
        case signal(Signals)
        /// "bot" counts only when it is not part of a word such as CUBOT or bottle.
        case bot
        /// "android" counts when it starts a word and is not an MMS client's `android-mms`.
        case android
        /// "ios" counts as a word followed by a space, `;` or `/`.
        case iOSWord
        case inAppBrowser(String)
    }

    /// Link-preview fetchers, search and archive crawlers, monitors, headless browsers and HTTP libraries.
    static let crawlerTokens = [
        "facebookexternalhit", "facebot", "twitterbot", "slackbot", "slack-imgproxy", "linkedinbot", "discordbot",
        "whatsapp/", "telegrambot", "applebot", "googlebot", "bingbot", "bingpreview", "skypeuripreview", "pinterestbot",
        "pinterest.com/bot", "redditbot", "embedly", "iframely", "vkshare", "mastodon/", "cardyb", "google-inspectiontool",
        "googleother", "google web preview", "+/web/snippet", "mediapartners-google", "adsbot-google", "appengine-google",
        "feedfetcher", "yahoomailproxy", "yahooseeker", "slurp", "yeti/", "daum/", "daumoa", "qwantify", "heritrix",
        "archiver", "larbin", "altavista", "genieo", "gomezagent", "lycos", "zyborg", "pingdom", " ptst/", "petalbot",
        "aspiegelbot", "scrapy", "ogscrper", "webthumb", "pagepeeker", "pompos/", "reaper/", "holmes/", "ichiro",
        "masscan", "xenu", "wordpress", "jetpack by wordpress", "tlsprober", "google-http-java-client", "cibra",
        "scraper", "indexer", "spider", "crawl", "headlesschrome", "lighthouse", "preview", "validator", "linkcheck",
        "curl/", "wget/", "python-", "go-http-client", "okhttp", "nutch", "boto/", "botocore", "botseer", "axios/",
        "node-fetch", "apache-httpclient", "libwww-perl", "pycurl", "aiohttp", "httpx", "postmanruntime", "phantomjs",
        "statuscake", "newrelicpinger", "ia_archiver", "semrush", "ahrefs", "bytespider", "gptbot", "chatgpt-user",
        "claudebot", "perplexitybot", "amazonbot", "ccbot", "outbrain", "opengraph", "robot",
    ]
    /// Crawlers whose User-Agent is just their name.
    static let crawlerPrefixes = ["java/", "voyager/"]

    static let scanner: TokenScanner<TokenKind> = {
        var tokens: [(String, TokenKind)] = crawlerTokens.map { ($0, .signal(.crawler)) }
        func add(_ signal: Signals, _ words: [String]) { tokens += words.map { ($0, .signal(signal)) } }
        add(.imitator, ["windows phone", "iemobile", "windows mobile", "windows ce", "kaios"])
        add(.androidOnly, ["adr ", "juc (linux", "silk/", "oculusbrowser", "dalvik/"])
        add(.appleTVOrWatch, ["apple tv", "appletv", "tvos", "watchos", "watch os"])
        add(.iPad, ["ipad"])
        add(.iPhone, ["iphone", "ipod"])
        add(.iOSBrowser, ["edgios/", "crios/", "fxios/"])
        add(.appleNetworking, ["cfnetwork/", "darwin/"])
        add(.macHardware, ["x86_64", "i386", "macbook", "imac", "macmini", "macpro", "macintosh", "mac os x 10", "intel mac"])
        add(.likeMacOSX, ["like mac os x"])
        add(.cpuOS, ["cpu os", "cpu iphone os"])
        add(
            .otherDevice,
            [
                "blackberry", "bb10", "symbian", "series40", "series60", "s60;", "tizen", "webos", "hpwos", "bada", "brew",
                "firefox os", "sailfish", "playstation", "xbox", "nintendo", "smart-tv", "smarttv", "googletv", "crkey",
                "hbbtv", "roku", "midp",
            ])
        add(
            .desktopOS,
            [
                "windows nt", "windows 9", "win64", "win32", "windows xp", "macintosh", "mac os x", "x11", "cros ", "linux",
                "freebsd", "openbsd", "netbsd", "ubuntu", "darwin",
            ])
        tokens += [("bot", .bot), ("android", .android), ("ios", .iOSWord)]
        let inApp: [(String, String)] = [
            ("fban/", "Facebook"), ("fbav/", "Facebook"), ("fb_iab", "Facebook"), ("instagram", "Instagram"),
            (" line/", "LINE"), (" gmail/", "Gmail"), ("gsa/", "Google"), ("twitter for", "X"), ("twitterandroid", "X"),
            ("snapchat", "Snapchat"), ("bytedancewebview", "TikTok"), ("musical_ly", "TikTok"),
            ("micromessenger", "WeChat"), ("kakaotalk", "KakaoTalk"), ("[pinterest/", "Pinterest"),
            ("linkedinapp", "LinkedIn"), ("; wv)", "WebView"),
        ]
        tokens += inApp.map { ($0.0, .inAppBrowser($0.1)) }
        return TokenScanner(tokens)
    }()

    static func detect(bytes: UnsafeBufferPointer<UInt8>, userAgent: String, deviceDetails: Bool) -> DetectedClient {
        var signals: Signals = []
        var inAppBrowser: String?
        scanner.scan(bytes) { index, end in
            let token = scanner.tokens[index]
            let start = end - token.bytes.count
            switch token.kind {
            case .signal(let signal):
                signals.insert(signal)
            case .bot:
                let afterIsLetter = end < bytes.count && isLetter(bytes[end])
                let cu = start >= 2 && lower(bytes[start - 2]) == UInt8(ascii: "c") && lower(bytes[start - 1]) == UInt8(ascii: "u")
                if !afterIsLetter && !cu { signals.insert(.crawler) }
            case .android:
                let wordStart = start == 0 || !isWordByte(bytes[start - 1])
                let mms = end + 4 <= bytes.count && bytes[end] == UInt8(ascii: "-") && lower(bytes[end + 1]) == UInt8(ascii: "m")
                if wordStart && !mms { signals.insert(.android) }
            case .iOSWord:
                let wordStart = start == 0 || !isWordByte(bytes[start - 1])
                let followed = end < bytes.count && [UInt8(ascii: " "), UInt8(ascii: ";"), UInt8(ascii: "/")].contains(bytes[end])
                if wordStart && followed { signals.insert(.iOSWord) }
            case .inAppBrowser(let name):
                // A named app beats the generic Android WebView marker that its User-Agent also carries.
                if inAppBrowser == nil || inAppBrowser == "WebView" { inAppBrowser = name }
            }
        }
        let platform = decide(signals, bytes: bytes)
        var client = DetectedClient(platform: platform)
        if platform.isIOS || platform == .android { client.inAppBrowser = inAppBrowser }
        return deviceDetails ? addingDeviceDetails(to: client, userAgent: userAgent) : client
    }

    /// The OS version and device model of a mobile client, read from the User-Agent it was detected from.
    /// - Parameters:
    ///   - client: a client detected without details.
    ///   - userAgent: its `User-Agent`.
    /// - Returns: the client with its OS version and device model.
    public static func addingDeviceDetails(to client: DetectedClient, userAgent: String) -> DetectedClient {
        var client = client
        switch client.platform {
        case .android:
            client.osVersion = UserAgentFields.androidVersion(userAgent)
            client.deviceModel = UserAgentFields.androidModel(userAgent)
        case .iPhone, .iPad:
            client.osVersion = UserAgentFields.iOSVersion(userAgent)
            client.deviceModel = client.platform == .iPad ? "iPad" : "iPhone"
        case .desktop, .crawler, .other:
            break
        }
        return client
    }

    private static func decide(_ signals: Signals, bytes: UnsafeBufferPointer<UInt8>) -> Platform {
        if signals.contains(.crawler) || crawlerPrefixes.contains(where: { hasPrefix(bytes, $0) }) { return .crawler }
        if signals.contains(.imitator) { return .other }
        if (signals.contains(.android) && !signals.contains(.likeMacOSX)) || signals.contains(.androidOnly) { return .android }
        if signals.contains(.appleTVOrWatch) { return .other }
        if signals.contains(.iPad) { return .iPad }
        if signals.contains(.iPhone) { return .iPhone }
        // Chrome, Edge or Firefox for iOS behind a desktop-class User-Agent: an iPad asking for desktop sites.
        if signals.contains(.iOSBrowser) { return .iPad }
        // CFNetwork/Darwin is an app's networking stack: iOS unless the string names Mac hardware.
        if signals.contains(.appleNetworking) { return signals.contains(.macHardware) ? .desktop : .iPhone }
        if signals.contains(.likeMacOSX) && signals.contains(.cpuOS) { return .iPhone }
        if signals.contains(.iOSWord) { return .iPhone }
        if signals.contains(.otherDevice) { return .other }
        if signals.contains(.desktopOS) { return .desktop }
        return .other
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        let byte = lower(byte)
        return byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: String) -> Bool {
        let prefix = Array(prefix.utf8)
        guard bytes.count >= prefix.count else { return false }
        return prefix.indices.allSatisfy { lower(bytes[$0]) == prefix[$0] }
    }
}
