import Foundation

/// What a click or an install says about the device, for fingerprint matching. Addresses are keyed hashes
/// (never raw), so comparing them only tells equal from different.
public struct DeviceFingerprint: Hashable, Sendable, Codable {
    /// Keyed hash of the full address.
    public var addressHash: String?
    /// Keyed hash of the /24 (IPv4) or /64 (IPv6) network.
    public var networkHash: String?
    public var ipVersion: IPAddress.Version?
    /// Major and minor only: `17.2`, `14` (see `majorMinor`).
    public var osVersion: String?
    /// Lowercase: `iphone` or `ipad` on iOS; the model (`pixel 7`) on Android.
    public var device: String?
    /// Primary language subtags, preferred first.
    public var languages: [String]
    /// `390x844`, smaller side first (orientation does not matter).
    public var screen: String?
    /// An IANA time zone such as `Europe/Paris`.
    public var timeZone: String?

    /// Creates the value from its parts: each parameter sets the property of the same name.
    public init(
        addressHash: String? = nil, networkHash: String? = nil, ipVersion: IPAddress.Version? = nil, osVersion: String? = nil,
        device: String? = nil, languages: [String] = [], screen: String? = nil, timeZone: String? = nil
    ) {
        self.addressHash = addressHash
        self.networkHash = networkHash
        self.ipVersion = ipVersion
        self.osVersion = osVersion
        self.device = device
        self.languages = languages
        self.screen = screen
        self.timeZone = timeZone
    }

    /// `1170x2532` or `2532 x 1170` → `1170x2532`; nil for anything else.
    /// - Parameters:
    ///   - width: points or density-independent pixels.
    ///   - height: the same.
    /// - Returns: `WxH` with the shorter side first (so rotation does not matter), or nil without both.
    public static func screen(width: Int?, height: Int?) -> String? {
        guard let width, let height, width > 0, height > 0, width < 100_000, height < 100_000 else { return nil }
        return "\(min(width, height))x\(max(width, height))"
    }

    /// The longest device model or time zone kept, in UTF-8 bytes (IANA names and real models are far shorter).
    public static let maximumTextLength = 64

    /// A free-text signal as it is kept: nil when empty, longer than `maximumTextLength`, or holding a control
    /// character or a bidirectional override (no time zone or model has one; printed by `relink deferred test` or
    /// shown in an answer, they could rewrite a terminal line or a page's text), so a client cannot make clicks,
    /// claims or answers large or deceptive with it.
    /// - Parameter text: a time zone or device model as sent.
    /// - Returns: the text, or nil.
    public static func boundedText(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.utf8.count <= maximumTextLength else { return nil }
        guard !text.unicodeScalars.contains(where: isDeceptive) else { return nil }
        return text
    }

    /// C0 and C1 controls, DEL, and the bidirectional embeddings, overrides and isolates.
    private static func isDeceptive(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F...0x9F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// `iPhone15,2` → `iPhone`, `iPad13,4` → `iPad`; Android models as they are (nil past `maximumTextLength`).
    /// - Parameters:
    ///   - modelName: `iPhone15,2`, `Pixel 7`.
    ///   - platform: the device's platform.
    /// - Returns: `iPhone`, `iPad` or the Android model; nil when unknown.
    public static func deviceFamily(modelName: String?, platform: Platform) -> String? {
        guard let modelName = modelName?.trimmingASCIIWhitespace(), !modelName.isEmpty else { return nil }
        if platform.isIOS {
            if modelName.hasPrefix("iPhone") || modelName.hasPrefix("iPod") { return "iPhone" }
            if modelName.hasPrefix("iPad") { return "iPad" }
            return nil  // simulators and unknown hardware say nothing useful
        }
        return boundedText(String(modelName))
    }

    /// `17.2.1` → `17.2`, `14` → `14`: the first two non-empty `.`-separated parts, when the first is all ASCII
    /// digits and they are at most `maximumTextLength` bytes. Byte by byte: a claim's version is whatever its client
    /// sent.
    /// - Parameter version: an OS version such as `17.2.1` or `14`.
    /// - Returns: its major and minor parts (`17.2`), or nil when it has none.
    public static func majorMinor(_ version: String?) -> String? {
        guard let version else { return nil }
        let bytes = version.utf8
        let dot = UInt8(ascii: ".")
        var majorStart = bytes.startIndex
        while majorStart < bytes.endIndex, bytes[majorStart] == dot { majorStart = bytes.index(after: majorStart) }
        var majorEnd = majorStart
        while majorEnd < bytes.endIndex, bytes[majorEnd] != dot {
            guard bytes[majorEnd] >= UInt8(ascii: "0") && bytes[majorEnd] <= UInt8(ascii: "9") else { return nil }
            majorEnd = bytes.index(after: majorEnd)
        }
        guard majorEnd > majorStart else { return nil }
        var minorStart = majorEnd
        while minorStart < bytes.endIndex, bytes[minorStart] == dot { minorStart = bytes.index(after: minorStart) }
        var minorEnd = minorStart
        while minorEnd < bytes.endIndex, bytes[minorEnd] != dot { minorEnd = bytes.index(after: minorEnd) }
        // No longer than a device model: the version is kept with every pending click, and the client chose it.
        let length =
            bytes.distance(from: majorStart, to: majorEnd) + (minorStart == minorEnd ? 0 : 1 + bytes.distance(from: minorStart, to: minorEnd))
        guard length <= maximumTextLength else { return nil }
        func text(_ range: Range<String.Index>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        if minorStart == minorEnd { return text(majorStart..<majorEnd) }
        // One dot between them, as nearly always: the bytes as they are, in one piece.
        if bytes.index(after: majorEnd) == minorStart { return text(majorStart..<minorEnd) }
        return text(majorStart..<majorEnd) + "." + text(minorStart..<minorEnd)
    }
}
